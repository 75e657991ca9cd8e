"""Reverses the real tokens of right-padded sequences (the source reversal of Sutskever et al.)."""

import keras
from keras import ops

from keras_nmt.special_ids import PAD_ID


@keras.saving.register_keras_serializable(package="keras_nmt")
class ReversePaddedSequence(keras.layers.Layer):
    """Reverses each sequence's non-padding prefix and leaves the padding on the right.

    Sutskever et al. (2014), "Sequence to Sequence Learning with Neural Networks", §3.3: feeding
    the source backwards puts its first words next to the first target words. Keeping the padding
    on the right keeps masks right-padded, which the fused cuDNN LSTM kernel requires.

    Input: token ids `(batch, seq_len)` int, padded with 0 on the right.
    Output: `(batch, seq_len)`, same dtype.

    Example:
        >>> ReversePaddedSequence()(np.array([[5, 6, 7, 0]]))  # -> [[7, 6, 5, 0]]
    """

    def call(self, tokens):
        return reverse_padded(tokens, ops.not_equal(tokens, PAD_ID))  # (batch, seq_len)

    def compute_output_spec(self, tokens):
        # The ids keep their dtype (Keras' default spec would give the float compute dtype).
        return keras.KerasTensor(tokens.shape, dtype=tokens.dtype)


def reverse_padded(sequence, mask):
    """Reverses each row's real prefix along time, leaving the padding on the right.

    `ReversePaddedSequence` reverses a source this way; a model that ran a reversed source
    through its encoder puts the encoder outputs back in source order with it, so that
    attention weights line up with the source tokens (and with `mask`).

    Args:
        sequence: `(batch, seq_len)` or `(batch, seq_len, dim)`.
        mask: `(batch, seq_len)` bool, True at real (right-padded) positions.

    Returns:
        `sequence`'s shape and dtype.
    """
    mask = ops.cast(mask, "int32")
    lengths = ops.sum(mask, axis=1, keepdims=True)  # (batch, 1)
    # A cumulative sum rather than `arange`: works on symbolic tensors of unknown length.
    positions = ops.cumsum(ops.ones_like(mask), axis=1) - 1  # (batch, seq_len)
    index = ops.where(positions < lengths, lengths - 1 - positions, positions)  # (batch, seq_len)
    if len(sequence.shape) == 3:
        index = ops.expand_dims(index, -1)
    return ops.take_along_axis(sequence, index, axis=1)
