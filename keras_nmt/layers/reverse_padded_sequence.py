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
        # tokens: (batch, seq_len)
        seq_len = ops.shape(tokens)[1]
        lengths = ops.sum(ops.cast(ops.not_equal(tokens, PAD_ID), "int32"), axis=1, keepdims=True)
        positions = ops.expand_dims(ops.arange(seq_len, dtype="int32"), 0)  # (1, seq_len)
        source_index = ops.where(positions < lengths, lengths - 1 - positions, positions)
        return ops.take_along_axis(tokens, source_index, axis=1)  # (batch, seq_len)

    def compute_output_spec(self, tokens):
        # The ids keep their dtype (Keras' default spec would give the float compute dtype).
        return keras.KerasTensor(tokens.shape, dtype=tokens.dtype)
