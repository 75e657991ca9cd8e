"""Batched beam search with a fixed-size finished buffer, length normalization and coverage.

References:
    Sutskever, Vinyals & Le (2014), "Sequence to Sequence Learning with Neural Networks":
    left-to-right beam search, hypotheses set aside when they emit END.
    Wu et al. (2016), "Google's Neural Machine Translation System": length normalization
    ``lp(Y) = ((5 + |Y|) / 6) ** alpha`` and coverage penalty (see ``scoring``).
"""

import math

import keras
from keras import ops

from keras_nmt.decoding import scoring
from keras_nmt.decoding.beam_step import beam_step, gather_beams, keep_best_finished
from keras_nmt.decoding.buffers import trim_to_longest, write_at
from keras_nmt.decoding.decode_result import DecodeResult
from keras_nmt.decoding.decoding_model import DecodingModel
from keras_nmt.decoding.decoding_options import (
    DEFAULT_LENGTH_PENALTY,
    DEFAULT_MAX_LENGTH_A,
    DEFAULT_MAX_LENGTH_B,
)
from keras_nmt.decoding.length_limits import cache_length, encode_source
from keras_nmt.special_ids import END_ID, START_ID

_NEG_INF = float("-inf")

# Under TensorFlow, drop stopped sentences from the batch as the loop goes (`compacting`); the
# outputs are the same. A module switch so that benchmarks can time both loops.
COMPACT = True


def beam_search(
    model: DecodingModel,
    encoder_tokens,
    beam_size: int = 4,
    n_best: int | None = None,
    normalization: str = "gnmt",
    length_penalty=DEFAULT_LENGTH_PENALTY,
    coverage_penalty: float = 0.0,
    max_length: int | None = None,
    max_length_a: float = DEFAULT_MAX_LENGTH_A,
    max_length_b: float = DEFAULT_MAX_LENGTH_B,
    return_attention: bool = False,
    trim: bool = True,
    batch_cache: bool = True,
) -> DecodeResult:
    """Beam search over the whole batch in one graph loop (``keras.ops.while_loop``).

    Layout: the memory is tiled once (each sentence repeated ``beam_size`` times, batch-major:
    row ``b * beam_size + k`` is beam ``k`` of sentence ``b``) and each step makes ONE
    ``decode_step`` call on ``batch * beam_size`` rows. After each step the model state is
    reordered by beam origin with ``keras.ops.take(x, origin, axis=0)`` on every leaf. The
    memory is not reordered: it is a function of the source only, so all beams of a sentence
    hold the same memory rows and any reordering within a sentence leaves it unchanged.
    Under TensorFlow (``COMPACT``), the loop drops stopped sentences (all their beams, memory
    and state rows) from the batch whenever it can halve it (``keras_nmt.decoding.compacting``);
    the outputs are the same. Other backends keep every sentence to the end.

    Step rule (as in fairseq): the ``beam * vocab`` extensions of the live hypotheses are
    ranked by raw log-probability. Extensions by ``END_ID`` that rank within the top
    ``beam_size`` are finished: they go to a fixed-size finished buffer of ``beam_size`` entries
    per sentence that keeps the best by score. The next live beams are the ``beam_size`` best
    extensions by any other token, so the beam never shrinks (``beam_step``, then
    ``keep_best_finished``: the candidate step, tested on its own). At the first step only one
    live beam per sentence has a finite score (the others ``-inf``), so the beams, and the n-best
    lists, hold distinct hypotheses.

    Score of a finished hypothesis: ``log_probs / lp(|Y|) + cp`` with ``lp`` given by
    ``normalization`` (``"none"``: 1; ``"average"``: ``|Y|``; ``"gnmt"``:
    ``((5 + |Y|) / 6) ** length_penalty``), ``|Y|`` counting ``END``, and ``cp`` the GNMT
    coverage penalty (attention models with ``coverage_penalty > 0``; else 0).

    Stopping rule, per sentence: a sentence stops when its finished buffer is full and no live
    hypothesis can beat the worst finished one, or when it reaches its length limit
    ``min(max_length, ceil(max_length_a * source_len + max_length_b))``. The loop ends when all
    sentences have stopped. "Cannot beat" uses an upper bound on the score of any extension of
    the best live hypothesis (raw log-probability ``s <= 0`` after ``t`` tokens, limit ``T``):
    log-probabilities only decrease as tokens are added, so

    * ``"none"``: ``s``;
    * ``"average"``: ``s / T`` (a longer hypothesis may have a better mean, at best ``s / T``);
    * ``"gnmt"``: ``s / lp(T)`` (``lp`` increases with length for ``alpha >= 0``);
    * coverage adds at most 0 (``cp <= 0``).

    ``beam_size=1`` and greedy decoding: the live hypothesis always takes the most probable
    token other than ``END``, so it follows greedy decoding's path until greedy emits ``END``.
    There greedy stops; beam search sets that hypothesis aside and stops too when no extension
    of the live one can beat it. Without length normalization (``"none"``, or ``"gnmt"`` with
    ``alpha = 0``) none can (log-probabilities only decrease), so the result is exactly greedy
    decoding's. With normalization the bound above may exceed it (e.g. GNMT ``alpha = 0.6``):
    the search goes on and returns a longer hypothesis when it finds one with a better
    normalized score.

    Output, per sentence: the finished hypotheses best first; if fewer than ``n_best`` finished
    within the limit, the live ones (no ``END``, scored with their current length) fill the
    remaining places, best first. Places that no hypothesis with a finite score could fill (tiny
    vocabularies only) have score ``-inf``.

    Args:
        model: keeps the inference contract (see CONTRIBUTING.md).
        encoder_tokens: int ``(batch, src_len)`` padded with ``PAD_ID``.
        beam_size: python int >= 1, live hypotheses per sentence (also the finished buffer size).
        n_best: python int in ``[1, beam_size]``, hypotheses returned per sentence; ``None``
            means ``beam_size``.
        normalization: ``"none"``, ``"average"`` or ``"gnmt"``.
        length_penalty: ``alpha >= 0`` for ``"gnmt"`` (Wu et al. use 0.6 - 0.7): a python
            float, or a float32 scalar tensor (e.g. a SavedModel input; then not validated
            here, the caller keeps it >= 0).
        coverage_penalty: python float ``beta >= 0``; only used when ``model.has_attention``.
        max_length: python int, the most tokens per hypothesis (``END`` included); also given to
            ``model.initial_state`` when ``batch_cache`` is false. ``None``: as for
            ``greedy_decode``.
        max_length_a: python float ``a`` of the per-sentence limit (default 1.5).
        max_length_b: python float ``b`` (default 10).
        return_attention: also return attention (attention models only).
        trim: cut the time axis to the longest returned hypothesis.
        batch_cache: size the model's decoding caches to the batch's longest per-sentence
            limit (the default; the same outputs, fewer positions per step) instead of
            ``max_length``; ``False`` keeps a static cache shape.

    Returns:
        An n-best ``DecodeResult``: tokens ``(batch, n_best, L)``, lengths, scores (normalized,
        with coverage) and log_probs (raw sums, ``END`` included) ``(batch, n_best)``, attention
        ``(batch, n_best, L, src_len)`` or ``None``. ``DecodeResult.best()`` gives the top one.
    """
    k = beam_size
    n_best = scoring.check_beam(beam_size, n_best)
    scoring.check_normalization(normalization, length_penalty)
    if not coverage_penalty >= 0:
        raise ValueError(f"coverage_penalty must be >= 0, got {coverage_penalty!r}")
    max_length, memory, batch, src_len, limits = encode_source(
        model, encoder_tokens, max_length, max_length_a, max_length_b
    )
    source_mask = memory["source_mask"]
    has_attention = bool(model.has_attention)
    use_coverage = has_attention and coverage_penalty > 0
    want_attention = has_attention and bool(return_attention)
    beam_mask = source_mask[:, None, :]  # (batch, 1, src_len)

    def score(log_probs, lengths, coverage, mask=beam_mask):
        value = scoring.normalize_log_probs(log_probs, lengths, normalization, length_penalty)
        if use_coverage:
            value = value + scoring.coverage_penalty(coverage, mask, coverage_penalty)
        return value

    # Tile once: row b * k + j is beam j of sentence b.
    tile = ops.repeat(ops.arange(batch, dtype="int32"), k, axis=0)  # (batch * k,)
    memory = keras.tree.map_structure(lambda x: ops.take(x, tile, axis=0), memory)
    state = model.initial_state(memory, cache_length(limits, max_length, batch_cache))
    # Flat row of beam 0 of each sentence, to turn per-sentence beam indices into rows.
    row_base = ops.arange(batch, dtype="int32")[:, None] * k  # (batch, 1)

    first_beam_only = ops.cast(ops.where(ops.equal(ops.arange(k), 0), 0.0, _NEG_INF), "float32")
    # Hypotheses per sentence, (batch, k, ...): the live beams (sorted best first) and the
    # finished buffer (``keep_best_finished`` keeps it sorted by score).
    alive = {
        "tokens": ops.zeros((batch, k, max_length), dtype="int32"),
        "log_probs": ops.zeros((batch, k), dtype="float32") + first_beam_only[None, :],
    }
    finished = {
        "scores": ops.full((batch, k), _NEG_INF, dtype="float32"),
        "tokens": ops.zeros((batch, k, max_length), dtype="int32"),
        "log_probs": ops.full((batch, k), _NEG_INF, dtype="float32"),
        "lengths": ops.zeros((batch, k), dtype="int32"),
    }
    if use_coverage:
        alive["coverage"] = ops.zeros((batch, k, src_len), dtype="float32")
    if want_attention:
        alive["attention"] = ops.zeros((batch, k, max_length, src_len), dtype="float32")
        finished["attention"] = ops.zeros((batch, k, max_length, src_len), dtype="float32")
    carry = {
        "input": ops.full((batch * k,), START_ID, dtype="int32"),
        "state": state,
        "alive": alive,
        "finished": finished,
        "steps": ops.zeros((batch,), dtype="int32"),  # tokens in the live hypotheses
        "done": ops.zeros((batch,), dtype="bool"),
    }
    # Under TensorFlow the loop drops stopped sentences (`compacting`): what depends on the
    # sentence goes into the carry, and the full-size outputs too ("out", written back when
    # sentences leave and at the end).
    compact = COMPACT and keras.backend.backend() == "tensorflow"
    if compact:
        from keras_nmt.decoding import compacting

        group = math.lcm(k, compacting.ROW_MULTIPLE) // k  # sentences per whole block of rows
        outputs = ("alive", "finished", "steps")
        carry.update(memory=memory, limits=limits, beam_mask=beam_mask)
        carry["sentences"] = ops.arange(batch, dtype="int32")  # index in the caller's batch
        carry["out"] = {key: carry[key] for key in outputs}

    def write_out(carry):
        values = {key: carry[key] for key in outputs}
        return compacting.write_back(carry["out"], values, carry["sentences"])

    def compact_to(carry, keep):
        out = write_out(carry)
        rows = ops.reshape(keep[:, None] * k + ops.arange(k, dtype="int32")[None, :], (-1,))
        by_row = ("input", "state", "memory")
        carry = {
            key: compacting.gather(value, rows if key in by_row else keep)
            for key, value in carry.items()
            if key != "out"
        }
        return {**carry, "out": out}

    def cond(t, carry):
        return ops.logical_and(ops.less(t, max_length), ops.logical_not(ops.all(carry["done"])))

    def body(t, carry):
        if compact:  # the sentences held now
            memory, limits, beam_mask = carry["memory"], carry["limits"], carry["beam_mask"]
            batch = ops.shape(carry["done"])[0]
            row_base = ops.arange(batch, dtype="int32")[:, None] * k
        else:
            memory, limits, beam_mask, batch, row_base = outer
        logits, state, attention = model.decode_step(carry["input"], carry["state"], memory)
        log_probs = ops.log_softmax(ops.cast(logits, "float32"), axis=-1)  # (batch * k, vocab)
        log_probs = ops.reshape(log_probs, (batch, k, ops.shape(log_probs)[-1]))
        alive = carry["alive"]
        active = ops.logical_not(carry["done"])  # (batch,)
        length = t + 1  # tokens in every extension made at this step
        step = beam_step(alive["log_probs"], log_probs, active)
        end_beam, live_beam = step["end_beam"], step["live_beam"]  # (batch, k) each

        # What each extension continues, picked by its beam (see `gather_beams`).
        parents = {"tokens": alive["tokens"]}
        if use_coverage or want_attention:
            step_attention = ops.reshape(ops.cast(attention, "float32"), (batch, k, src_len))
        if use_coverage:
            parents["coverage"] = alive["coverage"] + step_attention
        if want_attention:
            parents.update(attention=alive["attention"], step_attention=step_attention)
        by_end, by_live = gather_beams(parents, end_beam), gather_beams(parents, live_beam)

        # The newly finished hypotheses, then the k best of them and the buffer.
        end = {
            "scores": ops.where(
                step["is_finished"],
                score(step["end_log_probs"], length, by_end.get("coverage"), beam_mask),
                _NEG_INF,
            ),
            "tokens": write_at(by_end["tokens"], END_ID, t, 2),
            "log_probs": step["end_log_probs"],
            "lengths": ops.zeros_like(end_beam) + length,
        }
        if want_attention:
            end["attention"] = write_at(by_end["attention"], by_end["step_attention"], t, 2)
        finished = keep_best_finished(carry["finished"], end)

        # Advance the live beams; sentences that have stopped keep theirs unchanged.
        live = {
            "tokens": write_at(by_live["tokens"], step["live_token"], t, 2),
            "log_probs": step["live_log_probs"],
        }
        if use_coverage:
            live["coverage"] = by_live["coverage"]
        if want_attention:
            live["attention"] = write_at(by_live["attention"], by_live["step_attention"], t, 2)
        alive = {key: _where_active(active, live[key], alive[key]) for key in alive}
        steps = carry["steps"] + ops.cast(active, "int32")

        # Stopping: full buffer and no live extension can beat its worst entry, or the limit.
        worst_finished = finished["scores"][:, k - 1]
        bound = alive["log_probs"][:, 0]  # live beams are sorted best first
        if normalization != "none":
            bound = bound / scoring.length_normalizer(limits, normalization, length_penalty)
        settled = ops.logical_and(
            ops.greater(worst_finished, _NEG_INF), ops.less_equal(bound, worst_finished)
        )
        # Reorder the model state by beam origin (one take per leaf) and feed the new tokens.
        origin = ops.reshape(row_base + live_beam, (-1,))  # (batch * k,)
        new = {
            **carry,
            "input": ops.reshape(step["live_token"], (-1,)),
            "state": keras.tree.map_structure(lambda x: ops.take(x, origin, axis=0), state),
            "alive": alive,
            "finished": finished,
            "steps": steps,
            "done": ops.logical_or(
                carry["done"], ops.logical_or(settled, ops.greater_equal(steps, limits))
            ),
        }
        if compact:
            shrink, keep = compacting.plan(
                new["done"], carry["sentences"], outer[3], group, rows_per_sentence=k
            )
            new = compacting.where(shrink, lambda: compact_to(new, keep), new)
        return t + 1, new

    outer = (memory, limits, beam_mask, batch, row_base)
    t0 = ops.convert_to_tensor(0, dtype="int32")
    if compact:
        _, carry = compacting.while_loop(cond, body, t0, carry)
        carry = write_out(carry)
    else:
        _, carry = ops.while_loop(cond, body, (t0, carry))
    alive, finished = carry["alive"], carry["finished"]

    # Finished hypotheses first (already sorted), then the live ones sorted by score.
    alive_lengths = ops.zeros((batch, k), dtype="int32") + carry["steps"][:, None]
    alive_scores = score(alive["log_probs"], alive_lengths, alive.get("coverage"))
    alive_order = ops.cast(ops.top_k(alive_scores, k)[1], "int32")
    filled = ops.cast(ops.greater(finished["scores"], _NEG_INF), "int32")  # (batch, k)
    num_finished = ops.sum(filled, axis=1)[:, None]  # (batch, 1)
    place = ops.arange(n_best, dtype="int32")[None, :]  # (1, n_best)
    pick = ops.where(ops.less(place, num_finished), place, k + place - num_finished)

    alive = {**alive, "lengths": alive_lengths, "scores": alive_scores}
    alive = gather_beams({key: alive[key] for key in finished}, alive_order)
    best = gather_beams(
        {key: ops.concatenate([finished[key], alive[key]], axis=1) for key in finished}, pick
    )
    tokens, lengths, attention = best["tokens"], best["lengths"], best.get("attention")
    if trim:
        tokens, attention = trim_to_longest(lengths, tokens, attention, axis=2)
    return DecodeResult(tokens=tokens, lengths=lengths, scores=best["scores"],
                        log_probs=best["log_probs"], attention=attention)


def _where_active(active, updated, old):
    """``updated`` for the hypotheses of active sentences, ``old`` for the others.

    Args:
        active: bool ``(batch,)``.
        updated, old: ``(batch, ...)`` of the same shape.
    """
    mask = ops.reshape(active, (-1,) + (1,) * (len(old.shape) - 1))
    return ops.where(mask, updated, old)
