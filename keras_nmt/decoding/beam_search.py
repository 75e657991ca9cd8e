"""Batched beam search with a fixed-size finished buffer, length normalization and coverage.

References:
    Sutskever, Vinyals & Le (2014), "Sequence to Sequence Learning with Neural Networks":
    left-to-right beam search, hypotheses set aside when they emit END.
    Wu et al. (2016), "Google's Neural Machine Translation System": length normalization
    ``lp(Y) = ((5 + |Y|) / 6) ** alpha`` and coverage penalty (see ``scoring``).
"""

import keras
from keras import ops

from keras_nmt.decoding import _common, scoring
from keras_nmt.decoding.decode_result import DecodeResult
from keras_nmt.special_ids import END_ID, START_ID

_NEG_INF = float("-inf")


def beam_search(
    model,
    encoder_tokens,
    beam_size: int = 4,
    n_best: int | None = None,
    normalization: str = "gnmt",
    length_penalty=0.6,
    coverage_penalty: float = 0.0,
    max_length: int | None = None,
    max_length_a: float = _common.DEFAULT_MAX_LENGTH_A,
    max_length_b: float = _common.DEFAULT_MAX_LENGTH_B,
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

    Step rule (as in fairseq): the ``beam * vocab`` extensions of the live hypotheses are
    ranked by raw log-probability. Extensions by ``END_ID`` that rank within the top
    ``beam_size`` are finished: they go to a fixed-size finished buffer of ``beam_size`` entries
    per sentence that keeps the best by score. The next live beams are the ``beam_size`` best
    extensions by any other token, so the beam never shrinks. At the first step only one live
    beam per sentence has a finite score (the others ``-inf``), so the beams, and the n-best
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
    if not isinstance(k, int) or k < 1:
        raise ValueError(f"beam_size must be a python int >= 1, got {beam_size!r}")
    n_best = k if n_best is None else n_best
    if not isinstance(n_best, int) or not 1 <= n_best <= k:
        raise ValueError(f"n_best must be a python int in [1, beam_size], got {n_best!r}")
    scoring.check_normalization(normalization, length_penalty)
    if not coverage_penalty >= 0:
        raise ValueError(f"coverage_penalty must be >= 0, got {coverage_penalty!r}")
    max_length = _common.resolve_length_options(model, max_length, max_length_a, max_length_b)

    encoder_tokens = ops.convert_to_tensor(encoder_tokens, dtype="int32")
    memory = model.encode(encoder_tokens)
    source_mask = memory["source_mask"]
    batch = ops.shape(encoder_tokens)[0]
    src_len = ops.shape(source_mask)[1]
    limits = _common.sentence_max_lengths(source_mask, max_length, max_length_a, max_length_b)
    has_attention = bool(model.has_attention)
    use_coverage = has_attention and coverage_penalty > 0
    want_attention = has_attention and bool(return_attention)
    beam_mask = source_mask[:, None, :]  # (batch, 1, src_len)

    def normalize(log_probs, lengths):
        return scoring.normalize_log_probs(log_probs, lengths, normalization, length_penalty)

    def score(log_probs, lengths, coverage):
        value = normalize(log_probs, lengths)
        if use_coverage:
            value = value + scoring.coverage_penalty(coverage, beam_mask, coverage_penalty)
        return value

    # Tile once: row b * k + j is beam j of sentence b.
    tile = ops.repeat(ops.arange(batch, dtype="int32"), k, axis=0)  # (batch * k,)
    memory = keras.tree.map_structure(lambda x: ops.take(x, tile, axis=0), memory)
    state = model.initial_state(memory, _common.cache_length(limits, max_length, batch_cache))
    # Flat row of beam 0 of each sentence, to turn per-sentence beam indices into rows.
    row_base = ops.arange(batch, dtype="int32")[:, None] * k  # (batch, 1)

    first_beam_only = ops.cast(ops.where(ops.equal(ops.arange(k), 0), 0.0, _NEG_INF), "float32")
    carry = {
        "input": ops.full((batch * k,), START_ID, dtype="int32"),
        "state": state,
        "alive_tokens": ops.zeros((batch, k, max_length), dtype="int32"),
        "alive_log_probs": ops.zeros((batch, k), dtype="float32") + first_beam_only[None, :],
        "finished_tokens": ops.zeros((batch, k, max_length), dtype="int32"),
        "finished_scores": ops.full((batch, k), _NEG_INF, dtype="float32"),
        "finished_log_probs": ops.full((batch, k), _NEG_INF, dtype="float32"),
        "finished_lengths": ops.zeros((batch, k), dtype="int32"),
        "steps": ops.zeros((batch,), dtype="int32"),  # tokens in the live hypotheses
        "done": ops.zeros((batch,), dtype="bool"),
    }
    if use_coverage:
        carry["alive_coverage"] = ops.zeros((batch, k, src_len), dtype="float32")
    if want_attention:
        carry["alive_attention"] = ops.zeros((batch, k, max_length, src_len), dtype="float32")
        carry["finished_attention"] = ops.zeros(
            (batch, k, max_length, src_len), dtype="float32"
        )

    def gather_beams(x, beams):
        """``x`` (batch, m, ...) -> (batch, len(beams), ...) picking ``beams`` (batch, n)."""
        index = beams
        for _ in range(len(x.shape) - 2):
            index = ops.expand_dims(index, -1)
        return ops.take_along_axis(x, index, axis=1)

    def cond(t, carry):
        return ops.logical_and(ops.less(t, max_length), ops.logical_not(ops.all(carry["done"])))

    def body(t, carry):
        logits, state, attention = model.decode_step(carry["input"], carry["state"], memory)
        log_probs = ops.log_softmax(ops.cast(logits, "float32"), axis=-1)  # (batch * k, vocab)
        vocab = ops.shape(log_probs)[-1]
        log_probs = ops.reshape(log_probs, (batch, k, vocab))
        candidates = carry["alive_log_probs"][:, :, None] + log_probs  # (batch, k, vocab)
        active = ops.logical_not(carry["done"])  # (batch,)
        length = t + 1  # tokens in every extension made at this step

        # One top_k(2k) serves both lists below: each beam has one END extension, so at most k
        # of the 2k best are END and the k best non-END extensions are among them. (Two top_k
        # over batch x k x vocab were most of the step's bookkeeping time on CPU.)
        best_values, best_index = ops.top_k(ops.reshape(candidates, (batch, -1)), 2 * k)
        best_index = ops.cast(best_index, "int32")  # (batch, 2k), best first

        # Finishing: END extensions that rank within the top k of all extensions.
        top_values, top_index = best_values[:, :k], best_index[:, :k]
        end_beam = ops.floor_divide(top_index, vocab)  # (batch, k)
        is_finished = ops.logical_and(
            ops.logical_and(ops.equal(ops.mod(top_index, vocab), END_ID), active[:, None]),
            ops.greater(top_values, _NEG_INF),
        )
        # Live beams: the k best extensions by any token but END = the first k non-END of the 2k.
        best_is_end = ops.equal(ops.mod(best_index, vocab), END_ID)
        position = ops.arange(2 * k, dtype="int32")[None, :]
        first_live = ops.sort(ops.where(best_is_end, 2 * k, position), axis=-1)[:, :k]
        alive_values = ops.take_along_axis(best_values, first_live, axis=1)  # (batch, k)
        alive_index = ops.take_along_axis(best_index, first_live, axis=1)
        alive_beam = ops.floor_divide(alive_index, vocab)  # (batch, k)
        alive_token = ops.mod(alive_index, vocab)  # (batch, k)

        if use_coverage or want_attention:
            step_attention = ops.reshape(ops.cast(attention, "float32"), (batch, k, src_len))
        new_coverage = None
        if use_coverage:
            new_coverage = carry["alive_coverage"] + step_attention

        # Merge the newly finished into the finished buffer, keeping the k best by score.
        end_tokens = _common.write_at(
            gather_beams(carry["alive_tokens"], end_beam), END_ID, t, axis=2
        )
        end_coverage = gather_beams(new_coverage, end_beam) if use_coverage else None
        end_scores = ops.where(is_finished, score(top_values, length, end_coverage), _NEG_INF)
        end_log_probs = ops.where(is_finished, top_values, _NEG_INF)
        merged_scores, merged_index = ops.top_k(
            ops.concatenate([carry["finished_scores"], end_scores], axis=1), k
        )
        merged_index = ops.cast(merged_index, "int32")

        def merge(old, new):
            return gather_beams(ops.concatenate([old, new], axis=1), merged_index)

        new = {
            "finished_scores": merged_scores,
            "finished_tokens": merge(carry["finished_tokens"], end_tokens),
            "finished_log_probs": merge(carry["finished_log_probs"], end_log_probs),
            "finished_lengths": merge(
                carry["finished_lengths"], ops.zeros_like(end_beam) + length
            ),
        }
        if want_attention:
            end_attention = _common.write_at(
                gather_beams(carry["alive_attention"], end_beam),
                gather_beams(step_attention, end_beam),
                t,
                axis=2,
            )
            new["finished_attention"] = merge(carry["finished_attention"], end_attention)

        # Advance the live beams; sentences that have stopped keep theirs unchanged.
        def advance(old, updated):
            mask = ops.reshape(active, (-1,) + (1,) * (len(old.shape) - 1))
            return ops.where(mask, updated, old)

        new["alive_tokens"] = advance(
            carry["alive_tokens"],
            _common.write_at(gather_beams(carry["alive_tokens"], alive_beam), alive_token, t, 2),
        )
        new["alive_log_probs"] = advance(carry["alive_log_probs"], alive_values)
        if use_coverage:
            new["alive_coverage"] = advance(
                carry["alive_coverage"], gather_beams(new_coverage, alive_beam)
            )
        if want_attention:
            new["alive_attention"] = advance(
                carry["alive_attention"],
                _common.write_at(
                    gather_beams(carry["alive_attention"], alive_beam),
                    gather_beams(step_attention, alive_beam),
                    t,
                    axis=2,
                ),
            )
        steps = carry["steps"] + ops.cast(active, "int32")
        new["steps"] = steps

        # Reorder the model state by beam origin (one take per leaf) and feed the new tokens.
        origin = ops.reshape(row_base + alive_beam, (-1,))  # (batch * k,)
        new["state"] = keras.tree.map_structure(lambda x: ops.take(x, origin, axis=0), state)
        new["input"] = ops.reshape(alive_token, (-1,))

        # Stopping: full buffer and no live extension can beat its worst entry, or the limit.
        worst_finished = new["finished_scores"][:, k - 1]
        bound = new["alive_log_probs"][:, 0]  # live beams are sorted best first
        if normalization != "none":
            bound = bound / scoring.length_normalizer(limits, normalization, length_penalty)
        settled = ops.logical_and(
            ops.greater(worst_finished, _NEG_INF), ops.less_equal(bound, worst_finished)
        )
        new["done"] = ops.logical_or(
            carry["done"], ops.logical_or(settled, ops.greater_equal(steps, limits))
        )
        return t + 1, new

    t0 = ops.convert_to_tensor(0, dtype="int32")
    _, carry = ops.while_loop(cond, body, (t0, carry))

    # Finished hypotheses first (already sorted), then the live ones sorted by score.
    alive_lengths = ops.zeros((batch, k), dtype="int32") + carry["steps"][:, None]
    alive_scores = score(carry["alive_log_probs"], alive_lengths, carry.get("alive_coverage"))
    alive_order = ops.cast(ops.top_k(alive_scores, k)[1], "int32")
    num_finished = ops.sum(
        ops.cast(ops.greater(carry["finished_scores"], _NEG_INF), "int32"), axis=1
    )[:, None]  # (batch, 1)
    place = ops.arange(n_best, dtype="int32")[None, :]  # (1, n_best)
    pick = ops.where(ops.less(place, num_finished), place, k + place - num_finished)

    def select(finished, alive):
        alive = gather_beams(alive, alive_order)
        return gather_beams(ops.concatenate([finished, alive], axis=1), pick)

    tokens = select(carry["finished_tokens"], carry["alive_tokens"])
    lengths = select(carry["finished_lengths"], alive_lengths)
    scores = select(carry["finished_scores"], alive_scores)
    log_probs = select(carry["finished_log_probs"], carry["alive_log_probs"])
    attention = None
    if want_attention:
        attention = select(carry["finished_attention"], carry["alive_attention"])
    if trim:
        tokens, attention = _common.trim_to_longest(lengths, tokens, attention, axis=2)
    return DecodeResult(
        tokens=tokens, lengths=lengths, scores=scores, log_probs=log_probs, attention=attention
    )
