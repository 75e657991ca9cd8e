"""A fully connected layer with weight normalization and ConvS2S's initialisation."""

import math

import keras
from keras import ops

from keras_nmt.layers.layer_config import ArgumentsConfig


def normalized_kernel(direction, gain, axes):
    """`w = g · v / ‖v‖`: each output unit's weights rescaled to the norm `g` (Salimans and
    Kingma 2016, eq. 2); the norm of `v` is taken over `axes` (all but the output axis)."""
    norm = ops.sqrt(ops.sum(ops.square(direction), axis=axes, keepdims=True))
    return direction * (gain / norm)


@keras.saving.register_keras_serializable(package="keras_nmt")
class WeightNormDense(ArgumentsConfig, keras.layers.Layer):
    """`y = x · w + b` with `w = g · v / ‖v‖` (weight normalization), as every ConvS2S projection.

    Weight normalization (Salimans and Kingma 2016) learns each output unit's direction `v`
    and its length `g` apart, which keeps the scale of activations under control without
    batch statistics; Gehring et al. (2017, §3.4) use it on every layer with an
    initialisation that keeps the variance of activations through the network: `v` is drawn
    from N(0, sqrt((1 - p) / fan_in)), where `p` is the dropout rate applied to this layer's
    input (dropout scales the kept inputs by 1 / (1 - p)), and `b` starts at 0. `g` starts at
    the expected norm of a column of `v`, sqrt(1 - p), so that the first weights have the
    paper's scale (fairseq sets `g` to the measured norm instead; the two differ by the
    sampling noise of one column's norm).

    Args:
        units: output size.
        input_dropout: the dropout rate `p` applied to this layer's input (initialisation only).
        **kwargs: base `Layer` arguments.

    Call arguments:
        inputs: `(..., fan_in)`.

    Returns:
        `(..., units)`.

    Example:
        >>> layer = WeightNormDense(16, input_dropout=0.1)
        >>> layer(np.ones((2, 5, 8), "float32")).shape
        (2, 5, 16)

    References:
        Salimans and Kingma, 2016, "Weight Normalization", https://arxiv.org/abs/1602.07868;
        Gehring et al., 2017, "Convolutional Sequence to Sequence Learning",
        https://arxiv.org/abs/1705.03122
    """

    config_arguments = ("units", "input_dropout")

    def __init__(self, units, input_dropout=0.0, **kwargs):
        super().__init__(**kwargs)
        self.units = units
        self.input_dropout = input_dropout
        self.supports_masking = True

    def build(self, inputs_shape):
        fan_in = inputs_shape[-1]
        keep = 1.0 - self.input_dropout
        self.direction = self.add_weight(
            shape=(fan_in, self.units),
            initializer=keras.initializers.RandomNormal(stddev=math.sqrt(keep / fan_in)),
            name="direction")
        self.gain = self.add_weight(shape=(self.units,),
                                    initializer=keras.initializers.Constant(math.sqrt(keep)),
                                    name="gain")
        self.bias = self.add_weight(shape=(self.units,), initializer="zeros", name="bias")
        self.built = True

    @property
    def kernel(self):
        """The effective `(fan_in, units)` weights `w = g · v / ‖v‖`."""
        return normalized_kernel(self.direction, self.gain, axes=0)

    def call(self, inputs):
        return ops.matmul(inputs, ops.cast(self.kernel, inputs.dtype)) + ops.cast(
            self.bias, inputs.dtype)

    def compute_output_shape(self, inputs_shape):
        return tuple(inputs_shape[:-1]) + (self.units,)
