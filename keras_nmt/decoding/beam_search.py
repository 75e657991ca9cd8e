"""Beam search: the step rule (`beam_step`) and the hypotheses it keeps (`BeamSearch`).

References:
    Sutskever, Vinyals & Le (2014), "Sequence to Sequence Learning with Neural Networks":
    left-to-right beam search, hypotheses set aside when they emit END.
    Wu et al. (2016), "Google's Neural Machine Translation System": length normalization
    ``lp(Y) = ((5 + |Y|) / 6) ** alpha`` and coverage penalty (see ``scoring``).

The decoding loop (``keras_nmt.decoding.loop.decode``) feeds the model, stops sentences and
batches them; this module is what makes the search a beam search. Each sentence has
``beam_size`` rows (row ``b * beam_size + j`` is beam ``j`` of sentence ``b``), so each step is
ONE ``decode_step`` call on ``batch * beam_size`` rows.

**Step rule** (as in fairseq). The ``beam * vocab`` extensions of the live hypotheses are
ranked by raw log-probability. Extensions by ``END_ID`` that rank within the top
``beam_size`` are finished: they go to a fixed-size finished buffer of ``beam_size`` entries
per sentence that keeps the best by score. The next live beams are the ``beam_size`` best
extensions by any other token, so the beam never shrinks. At the first step only one live
beam per sentence has a finite score (the others ``-inf``), so the beams, and the n-best lists,
hold distinct hypotheses. The loop then reorders the model state by the live beams' origin.

**Score** of a finished hypothesis: ``log_probs / lp(|Y|) + cp`` with ``lp`` given by
``normalization`` (``"none"``: 1; ``"average"``: ``|Y|``; ``"gnmt"``:
``((5 + |Y|) / 6) ** length_penalty``), ``|Y|`` counting ``END``, and ``cp`` the GNMT
coverage penalty (attention models with ``coverage_penalty > 0``; else 0).

**Stopping rule**, per sentence: a sentence stops when its finished buffer is full and no
live hypothesis can beat the worst finished one (or at its length limit, which the loop
applies). "Cannot beat" uses an upper bound on the score of any extension of the best live
hypothesis (raw log-probability ``s <= 0`` after ``t`` tokens, limit ``T``): log-probabilities
only decrease as tokens are added, so

* ``"none"``: ``s``;
* ``"average"``: ``s / T`` (a longer hypothesis may have a better mean, at best ``s / T``);
* ``"gnmt"``: ``s / lp(T)`` (``lp`` increases with length for ``alpha >= 0``);
* coverage adds at most 0 (``cp <= 0``).

``beam_size=1`` and greedy decoding: the live hypothesis always takes the most probable token
other than ``END``, so it follows greedy decoding's path until greedy emits ``END``. There
greedy stops; beam search sets that hypothesis aside and stops too when no extension of the
live one can beat it. Without length normalization (``"none"``, or ``"gnmt"`` with
``alpha = 0``) none can (log-probabilities only decrease), so the result is exactly greedy
decoding's. With normalization the bound may exceed it (e.g. GNMT ``alpha = 0.6``): the search
goes on and returns a longer hypothesis when it finds one with a better normalized score.

**Output**, per sentence: the finished hypotheses best first; if fewer than ``n_best`` finished
within the limit, the live ones (no ``END``, scored with their current length) fill the
remaining places, best first. Places that no hypothesis with a finite score could fill (tiny
vocabularies only) have score ``-inf``.

Example:
    >>> decode(model, encoder_tokens, "beam", beam_size=4, length_penalty=0.6).best().tokens
"""

import keras
import numpy as np
from keras import ops

from keras_nmt.decoding import scoring
from keras_nmt.decoding.decode_result import DecodeResult, write_at
from keras_nmt.decoding.decoding_options import DEFAULT_LENGTH_PENALTY
from keras_nmt.special_ids import END_ID

_NEG_INF = float("-inf")


def gather_beams(x, beams):
    """Picks hypotheses per sentence.

    Args:
        x: ``(batch, m, ...)``, ``m`` hypotheses per sentence, or a structure (dict) of such
            tensors with one ``batch`` and ``m``.
        beams: int32 ``(batch, n)``, indices into ``m``.

    Returns:
        Like ``x``, ``(batch, n, ...)``: ``x[b, beams[b, j]]`` at ``[b, j]``.
    """
    # One `take` of the flat rows `b * m + j` per tensor, the rows computed once for all
    # (`take_along_axis` broadcasts and transposes first: about four times the graph ops).
    shape = ops.shape(keras.tree.flatten(x)[0])
    rows = ops.arange(shape[0], dtype="int32")[:, None] * shape[1] + beams  # (batch, n)
    return keras.tree.map_structure(
        lambda y: ops.take(ops.reshape(y, (-1, *ops.shape(y)[2:])), rows, axis=0), x
    )


def beam_step(alive_log_probs, log_probs, active):
    """Ranks the ``k * vocab`` extensions of each sentence's ``k`` live hypotheses (the step
    rule of the module docstring).

    One ``top_k(2k)`` serves both the finished and the live ones: each beam has one ``END``
    extension, so at most ``k`` of the ``2k`` best end, and the ``k`` best non-``END``
    extensions are among them. Ties go to the lower index (beam, then token).

    Args:
        alive_log_probs: float32 ``(batch, k)``, the live hypotheses' raw log-probabilities
            (``-inf`` for beams that do not exist yet).
        log_probs: float32 ``(batch, k, vocab)``, the next-token log-probabilities of each.
        active: bool ``(batch,)``; sentences that have stopped finish nothing.

    Returns:
        A dict of tensors:

        * ``"live_log_probs"``, ``"live_beam"``, ``"live_token"``, ``(batch, k)``: the ``k``
          best non-``END`` extensions, best first: raw log-probability, the beam extended and
          the token.
        * ``"end_log_probs"``, ``"end_beam"``, ``"is_finished"``, ``(batch, k)``: for each of
          the top ``k`` extensions, its raw log-probability where it finishes (an ``END``
          extension with a finite score, in an active sentence) else ``-inf``, its beam, and
          whether it finishes.
        * ``"ranked"``, ``"ranked_log_probs"``, ``"live_rank"``: the ``2k`` best extensions
          (flat index ``beam * vocab + token``, ``(batch, 2k)``) with their raw
          log-probabilities, and the rank among them of each live beam (``(batch, k)``): what
          `beam_tree` draws.

    Example:
        >>> step = beam_step(ops.zeros((1, 1)), ops.log([[[0.1, 0.2, 0.0, 0.3, 0.4]]]),
        ...                  ops.ones((1,), "bool"))   # k = 1, END_ID = 3
        >>> step["live_token"], step["end_log_probs"]  # [[4]], [[-inf]]: END ranked second
    """
    k = alive_log_probs.shape[1]
    vocab = ops.shape(log_probs)[-1]
    candidates = alive_log_probs[:, :, None] + log_probs  # (batch, k, vocab)
    batch = ops.shape(candidates)[0]
    best_values, best_index = ops.top_k(ops.reshape(candidates, (batch, -1)), 2 * k)
    best_index = ops.cast(best_index, "int32")  # (batch, 2k), best first

    # Finishing: END extensions that rank within the top k of all extensions.
    top_values, top_index = best_values[:, :k], best_index[:, :k]
    is_finished = ops.logical_and(
        ops.logical_and(ops.equal(ops.mod(top_index, vocab), END_ID), active[:, None]),
        ops.greater(top_values, _NEG_INF),
    )
    # Live beams: the k best extensions by any token but END = the first k non-END of the 2k.
    best_is_end = ops.equal(ops.mod(best_index, vocab), END_ID)
    position = ops.arange(2 * k, dtype="int32")[None, :]
    first_live = ops.sort(ops.where(best_is_end, 2 * k, position), axis=-1)[:, :k]
    live_index = gather_beams(best_index, first_live)
    return {
        "live_log_probs": gather_beams(best_values, first_live),
        "live_beam": ops.floor_divide(live_index, vocab),
        "live_token": ops.mod(live_index, vocab),
        "end_log_probs": ops.where(is_finished, top_values, _NEG_INF),
        "end_beam": ops.floor_divide(top_index, vocab),
        "is_finished": is_finished,
        "ranked": best_index,
        "ranked_log_probs": best_values,
        "live_rank": first_live,
    }


def keep_best_finished(finished, new):
    """Merges newly finished hypotheses into the fixed-size finished buffer, best ``k`` by score.

    Args:
        finished: dict of ``(batch, k, ...)`` tensors, one entry per buffered hypothesis, with
            ``"scores"`` float32 ``(batch, k)`` (``-inf`` for empty places) sorted best first.
        new: dict with the same keys, ``(batch, k', ...)``: the candidates (``-inf`` scores
            for those that did not finish).

    Returns:
        A dict like ``finished``: the ``k`` best of the old and new entries by score, best first
        (ties: old entries first).
    """
    k = finished["scores"].shape[1]
    scores, index = ops.top_k(ops.concatenate([finished["scores"], new["scores"]], axis=1), k)
    index = ops.cast(index, "int32")
    merged = gather_beams({
        key: ops.concatenate([finished[key], new[key]], axis=1)
        for key in finished
        if key != "scores"
    }, index)
    return {"scores": scores, **merged}


class BeamSearch:
    """The hypotheses of a beam search, for the decoding loop (see the module docstring).

    Per sentence: ``alive``, its ``beam_size`` live hypotheses sorted best first (tokens, raw
    log-probabilities, accumulated attention for the coverage penalty, attention), the
    ``finished`` buffer of the ``beam_size`` best finished ones (sorted by score) and ``steps``,
    the tokens of the live ones. ``start`` makes them, ``advance`` makes one step,
    ``finish`` picks the n-best lists.

    Args:
        step: the step rule, `beam_step`.
        has_attention: ``model.has_attention``.
        return_attention: also return attention ``(batch, n_best, L, src_len)``.
        beam_size: python int >= 1, live hypotheses per sentence (also the finished buffer size).
        n_best: python int in ``[1, beam_size]``, hypotheses returned per sentence; ``None``
            means ``beam_size``.
        normalization: ``"none"``, ``"average"`` or ``"gnmt"``.
        length_penalty: ``alpha >= 0`` for ``"gnmt"`` (Wu et al. use 0.6 - 0.7): a python
            float, or a float32 scalar tensor (e.g. a SavedModel input; then not validated
            here, the caller keeps it >= 0).
        coverage_penalty: python float ``beta >= 0``; only used when the model has attention.

    Attributes:
        record: ``None``, or a list (the loop's, for `beam_tree`) to which each step appends
            its candidates as numpy arrays.
    """

    record = None

    def __init__(self, step, has_attention, return_attention, beam_size=4, n_best=None,
                 normalization="gnmt", length_penalty=DEFAULT_LENGTH_PENALTY,
                 coverage_penalty=0.0):
        self.n_best = scoring.check_beam(beam_size, n_best)
        scoring.check_normalization(normalization, length_penalty)
        if not coverage_penalty >= 0:
            raise ValueError(f"coverage_penalty must be >= 0, got {coverage_penalty!r}")
        self.step, self.beams = step, beam_size
        self.normalization, self.length_penalty = normalization, length_penalty
        self.coverage_penalty = coverage_penalty
        self.use_coverage = bool(has_attention) and coverage_penalty > 0
        self.want_attention = bool(has_attention) and bool(return_attention)

    def score(self, log_probs, lengths, coverage, source_mask):
        """``log_probs / lp(lengths) + cp(coverage)`` of hypotheses ``(batch, k)``."""
        value = scoring.normalize_log_probs(log_probs, lengths, self.normalization,
                                            self.length_penalty)
        if self.use_coverage:
            value = value + scoring.coverage_penalty(coverage, source_mask[:, None, :],
                                                     self.coverage_penalty)
        return value

    def start(self, batch, max_length, src_len):
        """The hypotheses before the first step: beam 0 of each sentence at log-probability 0,
        the others at ``-inf`` (so that the first step extends one beam only)."""
        k = self.beams
        first_beam_only = ops.cast(ops.where(ops.equal(ops.arange(k), 0), 0.0, _NEG_INF),
                                   "float32")
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
        if self.use_coverage:
            alive["coverage"] = ops.zeros((batch, k, src_len), dtype="float32")
        if self.want_attention:
            alive["attention"] = ops.zeros((batch, k, max_length, src_len), dtype="float32")
            finished["attention"] = ops.zeros((batch, k, max_length, src_len), dtype="float32")
        return {"alive": alive, "finished": finished,
                "steps": ops.zeros((batch,), dtype="int32")}

    def advance(self, t, logits, log_probs, attention, hypotheses, active, held):
        """One step of every sentence held (see the module docstring).

        Args:
            t: int32 scalar, the step; the extensions made now have ``t + 1`` tokens.
            logits: float32 ``(batch * k, vocab)`` (unused: the ranking is by log-probability).
            log_probs: float32 ``(batch * k, vocab)``.
            attention: ``(batch * k, src_len)`` or ``None``.
            hypotheses: `start`'s structure, for the sentences held.
            active: bool ``(batch,)``, the sentences still decoding.
            held: the loop's per-sentence values (``limits``, ``source_mask``).

        Returns:
            ``(hypotheses, tokens (batch * k,), origin (batch * k,), stopped (batch,))``: the
            next input of each row, the row each row's state comes from, and the sentences
            whose finished buffer no live hypothesis can improve.
        """
        del logits
        k = self.beams
        batch = ops.shape(active)[0]
        log_probs = ops.reshape(log_probs, (batch, k, ops.shape(log_probs)[-1]))
        alive = hypotheses["alive"]
        step = self.step(alive["log_probs"], log_probs, active)
        end_beam, live_beam = step["end_beam"], step["live_beam"]  # (batch, k) each

        # What each extension continues, picked by its beam (see `gather_beams`).
        parents = {"tokens": alive["tokens"]}
        if self.use_coverage or self.want_attention:
            src_len = ops.shape(held["source_mask"])[1]
            step_attention = ops.reshape(ops.cast(attention, "float32"), (batch, k, src_len))
        if self.use_coverage:
            parents["coverage"] = alive["coverage"] + step_attention
        if self.want_attention:
            parents.update(attention=alive["attention"], step_attention=step_attention)
        by_end, by_live = gather_beams(parents, end_beam), gather_beams(parents, live_beam)

        # The newly finished hypotheses, then the k best of them and the buffer.
        length = t + 1  # tokens in every extension made at this step
        end = {
            "scores": ops.where(
                step["is_finished"],
                self.score(step["end_log_probs"], length, by_end.get("coverage"),
                           held["source_mask"]),
                _NEG_INF,
            ),
            "tokens": write_at(by_end["tokens"], END_ID, t, 2),
            "log_probs": step["end_log_probs"],
            "lengths": ops.zeros_like(end_beam) + length,
        }
        if self.want_attention:
            end["attention"] = write_at(by_end["attention"], by_end["step_attention"], t, 2)
        finished = keep_best_finished(hypotheses["finished"], end)

        # Advance the live beams; sentences that have stopped keep theirs unchanged.
        live = {
            "tokens": write_at(by_live["tokens"], step["live_token"], t, 2),
            "log_probs": step["live_log_probs"],
        }
        if self.use_coverage:
            live["coverage"] = by_live["coverage"]
        if self.want_attention:
            live["attention"] = write_at(by_live["attention"], by_live["step_attention"], t, 2)
        alive = {key: _where_active(active, live[key], alive[key]) for key in alive}

        # Stopping: a full buffer that no live extension can beat (the loop adds the limit).
        worst_finished = finished["scores"][:, k - 1]
        bound = alive["log_probs"][:, 0]  # live beams are sorted best first
        if self.normalization != "none":
            bound = bound / scoring.length_normalizer(held["limits"], self.normalization,
                                                      self.length_penalty)
        settled = ops.logical_and(ops.greater(worst_finished, _NEG_INF),
                                  ops.less_equal(bound, worst_finished))
        if self.record is not None:
            self.record.append({
                **{key: np.asarray(ops.convert_to_numpy(value)) for key, value in step.items()},
                "log_probs": np.asarray(ops.convert_to_numpy(log_probs)),
                "end_scores": np.asarray(ops.convert_to_numpy(end["scores"])),
            })
        origin = ops.arange(batch, dtype="int32")[:, None] * k + live_beam
        hypotheses = {"alive": alive, "finished": finished,
                      "steps": hypotheses["steps"] + ops.cast(active, "int32")}
        return (hypotheses, ops.reshape(step["live_token"], (-1,)), ops.reshape(origin, (-1,)),
                settled)

    def finish(self, hypotheses, held):
        """The n-best lists: finished hypotheses first (already sorted), then the live ones
        sorted by score, as a ``DecodeResult`` ``(batch, n_best, ...)``."""
        k, n_best = self.beams, self.n_best
        alive, finished = hypotheses["alive"], hypotheses["finished"]
        batch = ops.shape(hypotheses["steps"])[0]
        alive_lengths = ops.zeros((batch, k), dtype="int32") + hypotheses["steps"][:, None]
        alive_scores = self.score(alive["log_probs"], alive_lengths, alive.get("coverage"),
                                  held["source_mask"])
        alive_order = ops.cast(ops.top_k(alive_scores, k)[1], "int32")
        filled = ops.cast(ops.greater(finished["scores"], _NEG_INF), "int32")  # (batch, k)
        num_finished = ops.sum(filled, axis=1)[:, None]  # (batch, 1)
        place = ops.arange(n_best, dtype="int32")[None, :]  # (1, n_best)
        pick = ops.where(ops.less(place, num_finished), place, k + place - num_finished)

        alive = {**alive, "lengths": alive_lengths, "scores": alive_scores}
        alive = gather_beams({key: alive[key] for key in finished}, alive_order)
        best = gather_beams({key: ops.concatenate([finished[key], alive[key]], axis=1)
                             for key in finished}, pick)
        return DecodeResult(best["tokens"], best["lengths"], best["scores"], best["log_probs"],
                            best.get("attention"))


def _where_active(active, updated, old):
    """``updated`` (``(batch, ...)``) for the sentences ``active`` (bool ``(batch,)``), else
    ``old``."""
    mask = ops.reshape(active, (-1,) + (1,) * (len(old.shape) - 1))
    return ops.where(mask, updated, old)
