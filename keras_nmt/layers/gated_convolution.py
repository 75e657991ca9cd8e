"""A 1-D convolution followed by a gated linear unit, whole-sequence or one column at a time."""

import math

import keras
from keras import ops

from keras_nmt.layers.layer_config import ArgumentsConfig
from keras_nmt.layers.weight_norm_dense import normalized_kernel


@keras.saving.register_keras_serializable(package="keras_nmt")
class GatedConvolution(ArgumentsConfig, keras.layers.Layer):
    """`[A B] = conv(X)`, `h = A ⊗ σ(B)`: a convolution and a gated linear unit (GLU).

    Gehring et al. (2017), §3.2: a kernel `W ∈ R^{2c × k·d}` maps `k` consecutive input
    columns of width `d` to `2c` outputs, split in halves `A` and `B`; the gate `σ(B)` decides
    how much of `A` goes through (Dauphin et al. 2017, eq. 1: `h = A ⊗ σ(B)`), so the output has
    `c = channels` columns. The kernel is weight-normalised per output (`w = g · v / ‖v‖`,
    `normalized_kernel`) and starts as the paper's N(0, sqrt(4 (1 - p) / (k · d))) (§3.4: the
    4 makes up for the GLU halving the variance of its input twice), `p` being the dropout on
    the layer's input; `g` starts at that column norm, `b` at 0.

    Padding: positions where `mask` is False are set to 0 before the convolution, so that a
    right-padded sentence reads past its end exactly the zeros its own border padding gives it,
    however long the batch is. The border: `(k - 1) // 2` zeros on the left and `k // 2` on the
    right (`causal=False`, the encoder: output `i` sees inputs `i - (k-1)//2 .. i + k//2`), or
    `k - 1` on the left (`causal=True`, the decoder: output `i` sees inputs `i - k + 1 .. i`,
    never a later one).

    `step` computes one output column of a causal convolution from the new input column and
    the `k - 1` inputs before it (a rolling window), so incremental decoding costs one column
    per step, not the whole prefix.

    Args:
        channels: `c`, the output width (the convolution itself has `2c` outputs).
        kernel_size: `k`, the input columns each output sees.
        causal: pad on the left only (the decoder).
        input_dropout: the dropout rate `p` applied to the layer's input (initialisation only).
        **kwargs: base `Layer` arguments.

    Call arguments:
        inputs: `(batch, length, d)`.
        mask: optional bool `(batch, length)`, True at real positions.

    Returns:
        `(batch, length, channels)`.

    Example:
        >>> conv = GatedConvolution(channels=16, kernel_size=3, causal=True)
        >>> h = conv(x)                          # x: (batch, length, 16) -> (batch, length, 16)
        >>> window = ops.zeros((batch, 2, 16))   # the k - 1 inputs before position 0
        >>> h_0, window = conv.step(x[:, :1], window)   # == h[:, :1]

    References:
        Gehring et al., 2017, "Convolutional Sequence to Sequence Learning",
        https://arxiv.org/abs/1705.03122; Dauphin et al., 2017, "Language Modeling with Gated
        Convolutional Networks", https://arxiv.org/abs/1612.08083
    """

    config_arguments = ("channels", "kernel_size", "causal", "input_dropout")

    def __init__(self, channels, kernel_size, causal=False, input_dropout=0.0, **kwargs):
        super().__init__(**kwargs)
        self.channels = channels
        self.kernel_size = kernel_size
        self.causal = causal
        self.input_dropout = input_dropout
        self.supports_masking = True

    def build(self, inputs_shape):
        fan_in = self.kernel_size * inputs_shape[-1]  # k · d
        std = math.sqrt(4.0 * (1.0 - self.input_dropout) / fan_in)
        self.direction = self.add_weight(
            shape=(self.kernel_size, inputs_shape[-1], 2 * self.channels),
            initializer=keras.initializers.RandomNormal(stddev=std), name="direction")
        norm = std * math.sqrt(fan_in)  # the expected norm of one output's weights
        self.gain = self.add_weight(shape=(2 * self.channels,),
                                    initializer=keras.initializers.Constant(norm), name="gain")
        self.bias = self.add_weight(shape=(2 * self.channels,), initializer="zeros", name="bias")
        self.built = True

    @property
    def kernel(self):
        """The effective `(kernel_size, d, 2 * channels)` weights `w = g · v / ‖v‖`."""
        return normalized_kernel(self.direction, self.gain, axes=(0, 1))

    def _gate(self, convolved):
        """GLU: `(..., 2c)` -> `A ⊗ σ(B)`, `(..., c)`."""
        a, b = ops.split(convolved + ops.cast(self.bias, convolved.dtype), 2, axis=-1)
        return a * ops.sigmoid(b)

    def call(self, inputs, mask=None):
        x = inputs  # (batch, length, d)
        if mask is not None:
            x = x * ops.cast(mask, x.dtype)[..., None]  # padding reads as the border's zeros
        k = self.kernel_size
        left = k - 1 if self.causal else (k - 1) // 2
        x = ops.pad(x, ((0, 0), (left, k - 1 - left), (0, 0)))  # (batch, length + k - 1, d)
        convolved = ops.conv(x, ops.cast(self.kernel, x.dtype), padding="valid")
        return self._gate(convolved)  # (batch, length, channels)

    def step(self, inputs, window):
        """One output column of the causal convolution.

        Args:
            inputs: `(batch, 1, d)`, the input at the current position.
            window: `(batch, k - 1, d)`, the inputs at the `k - 1` positions before it (zeros
                before the sentence starts, as the causal border).

        Returns:
            `(outputs (batch, 1, channels), window)`: the new window ends with `inputs`.
        """
        columns = ops.concatenate([window, inputs], axis=1)  # (batch, k, d)
        kernel = ops.cast(self.kernel, columns.dtype)  # (k, d, 2c)
        convolved = ops.einsum("bkd,kdo->bo", columns, kernel)[:, None, :]  # (batch, 1, 2c)
        return self._gate(convolved), columns[:, 1:]

    def compute_output_shape(self, inputs_shape):
        return tuple(inputs_shape[:-1]) + (self.channels,)
