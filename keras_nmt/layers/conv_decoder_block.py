"""One ConvS2S decoder layer: causal convolution with GLU, its own attention, residual sum."""

import keras
from keras import ops

from keras_nmt.layers.attention import SQRT_HALF, ConvS2SAttention
from keras_nmt.layers.gated_convolution import GatedConvolution
from keras_nmt.layers.layer_config import ArgumentsConfig


@keras.saving.register_keras_serializable(package="keras_nmt")
class ConvDecoderBlock(ArgumentsConfig, keras.layers.Layer):
    """`h^l = (attend(GLU(causal_conv(dropout(h^{l-1})))) + h^{l-1}) · √½` (Gehring et al. 2017).

    A causal convolution (`GatedConvolution(causal=True)`: position `i` sees the layer inputs
    at `i - k + 1 .. i`, never a later one, §3.2), then this layer's attention over the
    encoder (`ConvS2SAttention`, §3.3: every decoder layer attends, the "multi-step"
    attention), then a residual connection from the layer's input scaled by √½.

    `call` runs a whole target sequence (training, scoring). `step` runs one position: the
    layer's state is its last `kernel_size - 1` inputs (a rolling window, zeros before the
    first token as the causal border), so a step costs one column whatever the prefix length;
    it gives the numbers `call` gives at that position.

    Args:
        channels: the width `c` of the layer's input and output.
        kernel_size: `k`, positions each output sees (itself and the `k - 1` before it).
        embedding_dim: the width of the target embedding and the encoder's keys and values.
        dropout: dropout rate on the convolution's input.
        **kwargs: base `Layer` arguments.

    Call arguments:
        inputs: `(batch, tgt_len, channels)`.
        target_embedding: `g`, `(batch, tgt_len, embedding_dim)`.
        keys, values: the encoder's `z` and `(z + e) · √½`, `(batch, src_len, embedding_dim)`.
        memory_mask: bool `(batch, src_len)`, True on real source tokens.
        training: dropout on when True.

    Returns:
        `(outputs (batch, tgt_len, channels), weights (batch, tgt_len, src_len))`, the
        attention weights of this layer.

    Example:
        >>> block = ConvDecoderBlock(channels=16, kernel_size=3, embedding_dim=8)
        >>> y, weights = block(x, g, keys, values, memory_mask=src != 0)
        >>> window = ops.zeros((batch, 2, 16))  # kernel_size - 1 inputs
        >>> y_0, weights_0, window = block.step(x[:, :1], window, g[:, :1], keys, values, src != 0)

    References:
        Gehring et al., 2017, "Convolutional Sequence to Sequence Learning",
        https://arxiv.org/abs/1705.03122
    """

    config_arguments = ("channels", "kernel_size", "embedding_dim", "dropout")

    def __init__(self, channels, kernel_size, embedding_dim, dropout=0.0, **kwargs):
        super().__init__(**kwargs)
        self.channels = channels
        self.kernel_size = kernel_size
        self.embedding_dim = embedding_dim
        self.dropout = dropout
        self.supports_masking = True
        policy = self.dtype_policy
        self.dropout_layer = keras.layers.Dropout(dropout, dtype=policy, name="dropout")
        self.convolution = GatedConvolution(channels, kernel_size, causal=True,
                                            input_dropout=dropout, dtype=policy,
                                            name="convolution")
        self.attention = ConvS2SAttention(embedding_dim, dtype=policy, name="attention")

    def build(self, inputs_shape):
        inputs_shape = tuple(inputs_shape)
        self.convolution.build(inputs_shape)
        self.attention.build(inputs_shape)
        self.built = True

    def call(self, inputs, target_embedding, keys, values, memory_mask, training=None):
        h = self.convolution(self.dropout_layer(inputs, training=training))
        h, weights = self.attention(h, target_embedding, keys, values, memory_mask)
        return (h + inputs) * ops.cast(SQRT_HALF, inputs.dtype), weights

    def step(self, inputs, window, target_embedding, keys, values, memory_mask,
             dropout_mask=None):
        """One target position, from the layer's last `kernel_size - 1` inputs.

        Args:
            inputs: `(batch, 1, channels)`, the layer's input at the current position.
            window: `(batch, kernel_size - 1, channels)`, its inputs at the positions before
                (after dropout: what the convolution read there).
            target_embedding: `(batch, 1, embedding_dim)`, `g` at the current position.
            keys, values, memory_mask: as in `call`.
            dropout_mask: optional `(batch, 1, channels)` dropout mask for the input (0 or
                `1 / (1 - rate)`), drawn by the caller: a step loop cannot draw inside itself
                under JAX. None: no dropout (decoding).

        Returns:
            `(outputs (batch, 1, channels), weights (batch, 1, src_len), window)`.
        """
        dropped = inputs if dropout_mask is None else inputs * dropout_mask
        h, window = self.convolution.step(dropped, window)
        h, weights = self.attention(h, target_embedding, keys, values, memory_mask)
        return (h + inputs) * ops.cast(SQRT_HALF, inputs.dtype), weights, window

    def compute_mask(self, inputs, *args, **kwargs):
        return None
