"""The candidate step of beam search: rank the extensions, split finished from live, keep the best.

``beam_search`` (the loop: model calls, state reordering, stopping) calls these once per step;
they see only score tensors, so they are tested on their own with hand-made numbers, the way
fairseq separates its search step (``search.py``) from its generator loop. ``keras.ops`` only,
static shapes: they trace into the loop's graph.
"""

import keras
from keras import ops

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
    # One `take` of flat rows `b * m + j` per tensor, as `beam_search` reorders its state, the
    # rows computed once for all: `take_along_axis` broadcasts and transposes first, 55 graph
    # ops per tensor where this takes 13 (and 15 once). Each beam size an export traces: 320
    # graph ops fewer (of 2,212, a tiny LSTM's).
    shape = ops.shape(keras.tree.flatten(x)[0])
    rows = ops.arange(shape[0], dtype="int32")[:, None] * shape[1] + beams  # (batch, n)
    return keras.tree.map_structure(
        lambda y: ops.take(ops.reshape(y, (-1, *ops.shape(y)[2:])), rows, axis=0), x
    )


def beam_step(alive_log_probs, log_probs, active):
    """Ranks the ``k * vocab`` extensions of each sentence's ``k`` live hypotheses.

    Extensions are ranked by raw log-probability (as in fairseq). Those by ``END_ID`` that rank
    within the top ``k`` of all extensions finish; the next live beams are the ``k`` best
    extensions by any other token, so the beam never shrinks. One ``top_k(2k)`` serves both:
    each beam has one ``END`` extension, so at most ``k`` of the ``2k`` best end, and the ``k``
    best non-``END`` extensions are among them. (Two ``top_k`` over ``batch x k x vocab`` were
    most of a step's bookkeeping time on CPU.) Ties go to the lower index (beam, then token).

    Args:
        alive_log_probs: float32 ``(batch, k)``, the live hypotheses' raw log-probabilities
            (``-inf`` for beams that do not exist yet).
        log_probs: float32 ``(batch, k, vocab)``, the next-token log-probabilities of each.
        active: bool ``(batch,)``; sentences that have stopped finish nothing.

    Returns:
        A dict of ``(batch, k)`` tensors:

        * ``"live_log_probs"``, ``"live_beam"``, ``"live_token"``: the ``k`` best non-``END``
          extensions, best first: raw log-probability, the beam extended and the token.
        * ``"end_log_probs"``, ``"end_beam"``, ``"is_finished"``: for each of the top ``k``
          extensions, its raw log-probability where it finishes (an ``END`` extension with a
          finite score, in an active sentence) else ``-inf``, its beam, and whether it finishes.

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
