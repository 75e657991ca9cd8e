"""One ConvS2S encoder layer: dropout, convolution with GLU, scaled residual sum."""

import keras
from keras import ops

from keras_nmt.layers.attention import SQRT_HALF
from keras_nmt.layers.gated_convolution import GatedConvolution
from keras_nmt.layers.layer_config import ArgumentsConfig


@keras.saving.register_keras_serializable(package="keras_nmt")
class ConvEncoderBlock(ArgumentsConfig, keras.layers.Layer):
    """`z^l = (GLU(conv(dropout(z^{l-1}))) + z^{l-1}) · √½` (Gehring et al. 2017, §3.2, §3.4).

    A convolution that sees `kernel_size` positions around each one (`GatedConvolution`,
    centred), a residual connection from the layer's input, and the sum multiplied by √½ so
    that its variance stays that of one term. Stacking `L` layers lets a position see
    `L · (kernel_size - 1) + 1` source words. Padded positions (where `mask` is False) read as
    zeros, so the outputs at real positions do not depend on how much padding the batch has.

    Args:
        channels: the width `c` of the layer's input and output.
        kernel_size: positions each output sees.
        dropout: dropout rate on the convolution's input.
        **kwargs: base `Layer` arguments.

    Call arguments:
        inputs: `(batch, src_len, channels)`.
        mask: optional bool `(batch, src_len)`, True at real positions (the Keras mask of
            `inputs` when there is one).
        training: dropout on when True.

    Returns:
        `(batch, src_len, channels)`.

    Example:
        >>> block = ConvEncoderBlock(channels=16, kernel_size=3, dropout=0.1)
        >>> z = block(x, mask=source_ids != 0)  # (batch, src_len, 16)

    References:
        Gehring et al., 2017, "Convolutional Sequence to Sequence Learning",
        https://arxiv.org/abs/1705.03122
    """

    config_arguments = ("channels", "kernel_size", "dropout")

    def __init__(self, channels, kernel_size, dropout=0.0, **kwargs):
        super().__init__(**kwargs)
        self.channels = channels
        self.kernel_size = kernel_size
        self.dropout = dropout
        self.supports_masking = True
        self.dropout_layer = keras.layers.Dropout(dropout, dtype=self.dtype_policy,
                                                  name="dropout")
        self.convolution = GatedConvolution(channels, kernel_size, causal=False,
                                            input_dropout=dropout, dtype=self.dtype_policy,
                                            name="convolution")

    def build(self, inputs_shape):
        self.convolution.build(tuple(inputs_shape))
        self.built = True

    def call(self, inputs, mask=None, training=None):
        h = self.convolution(self.dropout_layer(inputs, training=training), mask=mask)
        return (h + inputs) * ops.cast(SQRT_HALF, inputs.dtype)  # (batch, src_len, channels)

    def compute_mask(self, inputs, mask=None):
        return mask

    def compute_output_shape(self, inputs_shape):
        return tuple(inputs_shape)
