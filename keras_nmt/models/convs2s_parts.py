"""The layers and the few computations both ConvS2S twins share (the model: `convs2s.py`)."""

import math
import types

import keras
from keras import ops

from keras_nmt.layers.conv_decoder_block import ConvDecoderBlock
from keras_nmt.layers.conv_encoder_block import ConvEncoderBlock
from keras_nmt.layers.learned_positional_embedding import LearnedPositionalEmbedding
from keras_nmt.layers.weight_norm_dense import WeightNormDense


def make_layers(source_vocab_size, target_vocab_size, embedding_dim, channels, kernel_size,
                num_layers, dropout, max_length):
    """Every layer of a ConvS2S, named as in both twins, in a namespace (the subclassed twin
    sets each as its attribute; the functional twin wires them into its graphs).

    Each projection knows the dropout on its input, for its initialisation (`convs2s.py`).
    """
    return types.SimpleNamespace(
        source_embedding=LearnedPositionalEmbedding(
            source_vocab_size, embedding_dim, max_length, name="source_embedding"),
        source_dropout=keras.layers.Dropout(dropout, name="source_embedding_dropout"),
        encoder_input=WeightNormDense(channels, input_dropout=dropout, name="encoder_input"),
        encoder_blocks=[ConvEncoderBlock(channels, kernel_size, dropout,
                                         name=f"encoder_block_{i}") for i in range(num_layers)],
        encoder_output=WeightNormDense(embedding_dim, name="encoder_output"),
        target_embedding=LearnedPositionalEmbedding(
            target_vocab_size, embedding_dim, max_length, name="target_embedding"),
        target_dropout=keras.layers.Dropout(dropout, name="target_embedding_dropout"),
        decoder_input=WeightNormDense(channels, input_dropout=dropout, name="decoder_input"),
        decoder_blocks=[ConvDecoderBlock(channels, kernel_size, embedding_dim, dropout,
                                         name=f"decoder_block_{i}") for i in range(num_layers)],
        output_hidden=WeightNormDense(embedding_dim, name="output_hidden"),
        output_dropout=keras.layers.Dropout(dropout, name="output_dropout"),
        output_projection=WeightNormDense(target_vocab_size, input_dropout=dropout,
                                          name="output_projection"),
    )


def scale_gradient(x, factor):
    """`x` in the forward pass, `factor` times its gradient in the backward pass."""
    frozen = ops.stop_gradient(x)
    return frozen + factor * (x - frozen)


def keys_and_values(encoder_output, source_embedding, source_mask, num_layers):
    """The encoder's memory for the attention: keys `z_j` and values `(z_j + e_j) · √½`.

    `z` (the encoder output) is 0 at padding, and its gradient is divided by `2 · num_layers`:
    each of the `num_layers` decoder layers attends to it (Gehring et al. 2017, §3.4; fairseq
    scales by `1 / (2 · attention layers)`). The embeddings `e` keep their gradient.

    Args:
        encoder_output: `(batch, src_len, embedding_dim)`, after the `encoder_output` layer.
        source_embedding: `e`, `(batch, src_len, embedding_dim)` (after dropout).
        source_mask: bool `(batch, src_len)`.
        num_layers: the decoder layers.

    Returns:
        `(keys, values)`, each `(batch, src_len, embedding_dim)`.
    """
    z = encoder_output * ops.cast(source_mask, encoder_output.dtype)[..., None]
    z = scale_gradient(z, 1.0 / (2.0 * num_layers))
    # `/ √2`, that is `· √½`: in a functional graph Keras marks a product with a constant as a
    # sparse tensor (JAX then warns at the attention's matmul); a quotient stays dense.
    return z, (z + source_embedding) / math.sqrt(2.0)


def zero_windows(batch, num_layers, kernel_size, channels, dtype):
    """Each decoder layer's window before the first token: `kernel_size - 1` zero inputs, the
    causal border, `{"window_{i}": (batch, kernel_size - 1, channels)}`."""
    window = ops.zeros((batch, kernel_size - 1, channels), dtype=dtype)
    return {f"window_{i}": window for i in range(num_layers)}


def mean_attention(weights):
    """The attention `decode_step` returns: the mean over the decoder layers of their weights
    at this step, a list of `(batch, 1, src_len)` -> `(batch, src_len)` float32 (a
    distribution, 0 on padding, as each layer's)."""
    return ops.cast(ops.mean(ops.stack([w[:, 0] for w in weights], axis=1), axis=1), "float32")
