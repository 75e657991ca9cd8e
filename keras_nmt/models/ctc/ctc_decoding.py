"""Reading a labelling off CTC frames: best-path (greedy) decoding and prefix beam search.

Graves, Fernández, Gomez and Schmidhuber (2006), "Connectionist Temporal Classification", §3.2.
The wanted output is the most probable labelling `h(x) = argmax_l p(l | x)`, where `p(l | x)`
sums over every path (one label or blank per frame) that collapses to `l` (`ctc_loss`).

- **Best-path decoding** (eq. 16) takes the most probable *path* instead, which is one arg-max
  per frame, and collapses it: `h(x) ≈ B(π*)`, `π* = argmax_t y^t` at each frame, `B` merging
  repeats and dropping blanks. One pass, no search.
- **Prefix (beam) search** keeps the `beam_size` most probable *prefixes* of labellings, each
  with the summed probability of all path prefixes that collapse to it (ending in a blank, or
  not), and extends them frame by frame; `keras.ops.ctc_decode` runs it (`tf.nn.
  ctc_beam_search_decoder`, or Keras' own JAX code).

The two differ because a labelling's paths add up: with frames `(-: .1, a: .9)` and
`(-: .3, a: .3, b: .4)` the best path is `ab` (`.9 × .4 = .36`) but `a` is more probable
(`.9 × (.3 + .3) = .54`: paths `a-` and `aa`). So beam search of width 1 is not best-path
decoding: it already merges the paths of its one prefix (tested). On frames where one label is
nearly certain, as a trained model's mostly are, the two agree.
"""

from keras import ops

from keras_nmt.models.ctc.ctc_loss import BLANK
from keras_nmt.special_ids import PAD_ID


def best_path_decode(log_probs, frame_lengths):
    """Greedy CTC decoding: the arg-max label of every frame, repeats merged, blanks dropped.

    Args:
        log_probs: float `(batch, frames, vocab)` log-probabilities (or logits: the arg-max is
            the same); index `BLANK` is the blank.
        frame_lengths: int `(batch,)`: frames past a sequence's length count as blanks.

    Returns:
        `(labels, lengths, log_probs)`: labels int32 `(batch, frames)`, each labelling packed to
        the left and padded with `PAD_ID`; lengths int32 `(batch,)`; the best path's
        log-probability `Σ_t max y^t` float32 `(batch,)`.

    Example:
        Frames whose arg-maxes are `a a - a b b -` give `a a b` (`aa` merged, `-` kept apart).
    """
    frames = ops.shape(log_probs)[1]
    positions = ops.arange(frames)
    real = ops.less(positions[None, :], ops.cast(frame_lengths, "int32")[:, None])
    best = ops.where(real, ops.cast(ops.argmax(log_probs, axis=-1), "int32"), BLANK)
    previous = ops.pad(best[:, :-1], [[0, 0], [1, 0]], constant_values=BLANK)
    # B: keep a frame's label when it is not the blank and not the previous frame's label.
    keep = ops.logical_and(ops.not_equal(best, BLANK), ops.not_equal(best, previous))
    # Pack the kept labels to the left, in order: sort by (kept first, then frame index).
    order = ops.argsort(ops.where(keep, positions[None, :], frames + positions[None, :]), axis=1)
    labels = ops.take_along_axis(ops.where(keep, best, PAD_ID), order, axis=1)
    lengths = ops.sum(ops.cast(keep, "int32"), axis=1)
    path_log_prob = ops.sum(
        ops.where(real, ops.max(ops.cast(log_probs, "float32"), axis=-1), 0.0), axis=1)
    return labels, lengths, path_log_prob


def beam_decode(log_probs, frame_lengths, beam_size, n_best=None):
    """CTC prefix beam search (`keras.ops.ctc_decode(strategy="beam_search")`).

    Args:
        log_probs: float `(batch, frames, vocab)` log-probabilities; index `BLANK` is the blank.
        frame_lengths: int `(batch,)`.
        beam_size: python int, the prefixes kept at each frame.
        n_best: python int <= `beam_size`, the labellings returned (default `beam_size`).

    Returns:
        `(labels, lengths, log_probs)`: labels int32 `(batch, n_best, frames)` padded with
        `PAD_ID`, best first; lengths int32 `(batch, n_best)`; `log p(l | x)` float32
        `(batch, n_best)` as the search summed it over the paths it kept.
    """
    n_best = beam_size if n_best is None else n_best
    decoded, scores = ops.ctc_decode(
        ops.cast(log_probs, "float32"), ops.cast(frame_lengths, "int32"),
        strategy="beam_search", beam_width=beam_size, top_paths=n_best, mask_index=BLANK,
    )  # decoded (n_best, batch, frames) padded with -1; scores (batch, n_best)
    decoded = ops.transpose(ops.cast(decoded, "int32"), (1, 0, 2))
    labels = ops.where(ops.greater_equal(decoded, 0), decoded, PAD_ID)
    lengths = ops.sum(ops.cast(ops.greater_equal(decoded, 0), "int32"), axis=-1)
    return labels, lengths, ops.cast(scores, "float32")
