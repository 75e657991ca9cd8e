"""The CTC loss: `-log p(y | x)`, summed over every alignment of `y` to the input frames.

Graves, Fernández, Gomez and Schmidhuber (2006), "Connectionist Temporal Classification:
Labelling Unsegmented Sequence Data with Recurrent Neural Networks", §3 and §4.1.

At each of the `T` frames the model gives a distribution `y^t` over the labels and the blank
`-` (here the padding id, `BLANK = PAD_ID = 0`, which is never a target token). A *path* `π` is
one label or blank per frame, with probability (eq. 2)

    p(π | x) = Π_t y^t_{π_t}

`B` maps a path to a labelling: merge repeated labels, then drop the blanks, so that
`B(a-ab-) = B(-aa--abb) = aab` (a blank between two equal labels keeps both). A labelling's
probability sums over its paths (eq. 3):

    p(l | x) = Σ_{π ∈ B⁻¹(l)} p(π | x)

computed in `O(T |l|)` by the forward variables `α_t(s)` over `l'`, the labelling with a blank
before, between and after its labels (`|l'| = 2|l| + 1`) (eqs. 5-8):

    α_1(1) = y^1_-      α_1(2) = y^1_{l_1}      α_1(s) = 0 for s > 2
    α_t(s) = (α_{t-1}(s) + α_{t-1}(s-1) [+ α_{t-1}(s-2)]) · y^t_{l'_s}
    p(l | x) = α_T(|l'|) + α_T(|l'| - 1)

where the bracketed term is added only when `l'_s` is a label different from `l'_{s-2}` (a
path may skip a blank between two different labels, never between two equal ones). The
backend computes it (`keras.ops.ctc_loss`, or TensorFlow's C++ kernel: `_sequence_losses`).

A labelling fits `T` frames only if `T >= |l| + r(l)`, `r(l)` its adjacent repeats (each needs
a blank between): "letter" needs 7 frames. Beyond that `p(l | x) = 0` and the loss is infinite,
so such sequences are left out of the loss here (with an empty labelling in their place, so no
`inf` or NaN reaches the gradient), as PyTorch's `zero_infinity` does.
"""

import keras
from keras import ops

from keras_nmt.special_ids import END_ID, PAD_ID, UNK_ID

# The blank label: the padding id, which no target sequence contains.
BLANK = PAD_ID


def labels_from_targets(targets):
    """The CTC labellings of the training targets `y + [END]`: the END dropped.

    CTC needs no END: the output ends where the frames end.

    Args:
        targets: int `(batch, target_len)`, padded with `PAD_ID`.

    Returns:
        `(labels, lengths)`: int32 `(batch, target_len)` padded with `BLANK` (= `PAD_ID`), and
        int32 `(batch,)`.
    """
    targets = ops.cast(targets, "int32")
    labels = ops.where(ops.equal(targets, END_ID), PAD_ID, targets)
    lengths = ops.sum(ops.cast(ops.not_equal(labels, PAD_ID), "int32"), axis=1)
    return labels, lengths


def frames_needed(labels, lengths):
    """The fewest frames that can carry each labelling: `|l| + r(l)` (`r`: adjacent repeats).

    Args:
        labels: int `(batch, label_len)`, padded with `BLANK`.
        lengths: int `(batch,)`.

    Example:
        "letter" (6 labels, one repeat "tt") needs 7 frames: `l e t - t e r`.
    """
    repeats = ops.logical_and(ops.equal(labels[:, 1:], labels[:, :-1]),
                              ops.not_equal(labels[:, 1:], BLANK))
    return lengths + ops.sum(ops.cast(repeats, "int32"), axis=1)


def ctc_loss(targets, logits, frame_lengths):
    """The mean CTC loss per target token of a batch, in nats.

    `Σ_i -log p(l_i | x_i) / Σ_i |l_i|` over the sequences whose labelling fits their frames
    (see the module docstring); 0 when none does. Dividing by the number of labels, not of
    sequences, gives the per-token scale of the seq2seq models' cross-entropy, so the same
    learning rate and gradient clipping suit both.

    Args:
        targets: int `(batch, target_len)`, `y + [END]` padded with `PAD_ID` (the training
            targets of every model; the END is dropped here).
        logits: float `(batch, frames, vocab)`, unnormalized scores; index `BLANK` is the blank.
        frame_lengths: int `(batch,)`, the real frames of each sequence.

    Returns:
        A float32 scalar.

    Example:
        >>> ctc_loss(ops.array([[5, 6, 3]]), logits, ops.array([4]))  # labels [5, 6], 4 frames
    """
    labels, lengths = labels_from_targets(targets)
    frame_lengths = ops.cast(frame_lengths, "int32")
    fits = ops.less_equal(frames_needed(labels, lengths), frame_lengths)
    # A labelling that does not fit is replaced by the empty one (finite loss and gradient),
    # then masked out.
    labels = ops.where(fits[:, None], labels, BLANK)
    lengths = ops.where(fits, lengths, 0)
    losses = _sequence_losses(labels, ops.cast(logits, "float32"), lengths, frame_lengths)
    losses = ops.where(fits, losses, 0.0)
    tokens = ops.sum(ops.cast(lengths, "float32"))
    return ops.sum(losses) / ops.maximum(tokens, 1.0)


def _sequence_losses(labels, logits, lengths, frame_lengths):
    """`-log p(l | x)` of each sequence, float32 `(batch,)`: `keras.ops.ctc_loss`.

    Under TensorFlow the same loss comes from TensorFlow's C++ CTC kernel, which takes the
    labels as a sparse tensor: the dense code `keras.ops.ctc_loss` runs there is a loop of
    graph ops over the frames, an order of magnitude slower on a CPU and most of the spelling
    model's training step (docs/results/spelling-ctc.md). The two agree (tested).
    """
    if keras.backend.backend() != "tensorflow":
        return ops.ctc_loss(labels, logits, lengths, frame_lengths, mask_index=BLANK)
    # Imported here, as `FusedAdam` does: the models load without TensorFlow (JAX machines),
    # where this line is never reached.
    import tensorflow as tf  # noqa: PLC0415

    # The kernel refuses an empty labelling: such a row gets a one-label stand-in (one frame
    # carries it), and its loss, -Σ_t log y^t_- (every real frame blank), is taken here.
    empty = ops.equal(lengths, 0)
    first = ops.equal(ops.arange(ops.shape(labels)[1]), 0)[None, :]
    stand_in = ops.where(ops.logical_and(empty[:, None], first), UNK_ID, labels)
    sparse = tf.sparse.from_dense(stand_in)  # the labels; BLANK (0) is the padding dropped
    kernel = tf.nn.ctc_loss(sparse, logits, None, ops.maximum(frame_lengths, 1),
                            logits_time_major=False, blank_index=BLANK)
    frames = ops.arange(ops.shape(logits)[1])[None, :] < frame_lengths[:, None]
    blank = ops.log_softmax(logits, axis=-1)[..., BLANK]  # (batch, frames)
    return ops.where(empty, -ops.sum(ops.where(frames, blank, 0.0), axis=1), kernel)
