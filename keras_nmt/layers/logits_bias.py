"""A learned bias added to the output logits of a tied output projection."""

import keras
from keras import ops

from keras_nmt.layers.layer_config import ArgumentsConfig


@keras.saving.register_keras_serializable(package="keras_nmt")
class LogitsBias(ArgumentsConfig, keras.layers.Layer):
    """Adds a learned vector `b` (one value per vocabulary id) to logits: `logits + b`.

    A tied output projection (`logits = h · E^T`, Press & Wolf, 2017) has no bias of its own;
    Marian's models add one (`decoder_ff_logit_out_b`, transformers' `final_logits_bias`). The
    bias starts at zero. The Transformer twins build it with `dtype="float32"`, after the logits
    are cast, so that a very negative value (a token never to be produced) stays exact under
    mixed precision.

    Args:
        vocab_size: number of ids (the logits' last axis).
        **kwargs: base `Layer` arguments.

    Call arguments:
        logits: `(..., vocab_size)`.

    Returns:
        `(..., vocab_size)`, in the layer's compute dtype.

    Example:
        >>> bias = LogitsBias(20)
        >>> bias(ops.zeros((2, 3, 20))).shape
        (2, 3, 20)

    References:
        Press & Wolf, 2017, "Using the Output Embedding to Improve Language Models",
        https://arxiv.org/abs/1608.05859
    """

    config_arguments = ("vocab_size",)

    def __init__(self, vocab_size, **kwargs):
        super().__init__(**kwargs)
        self.vocab_size = vocab_size
        self.supports_masking = True

    def build(self, inputs_shape=None):
        self.bias = self.add_weight(shape=(self.vocab_size,), initializer="zeros", name="bias")
        self.built = True

    def call(self, logits):
        return ops.cast(logits, self.compute_dtype) + ops.cast(self.bias, self.compute_dtype)

    def compute_output_shape(self, inputs_shape):
        return tuple(inputs_shape)
