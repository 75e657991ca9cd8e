"""The ConvS2S layers against their equations: weight normalization, the gated convolution (its
causal border, its padding, its one-column step), the attention's scalings and the blocks."""

import math

import keras
import numpy as np
import pytest
from keras import ops

from keras_nmt.layers import (
    ConvDecoderBlock,
    ConvEncoderBlock,
    ConvS2SAttention,
    GatedConvolution,
    LearnedPositionalEmbedding,
    WeightNormDense,
)

RNG = np.random.default_rng(0)


def floats(*shape):
    return RNG.normal(size=shape).astype("float32")


def numpy(x):
    return ops.convert_to_numpy(x)


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def test_weight_normalization_sets_each_columns_norm_to_its_gain():
    keras.utils.set_random_seed(0)
    layer = WeightNormDense(7, input_dropout=0.2)
    x = floats(3, 40)
    y = numpy(layer(x))
    kernel = numpy(layer.kernel)
    # w = g v / |v|: the columns' norms are the gains, sqrt(1 - p) at the start.
    np.testing.assert_allclose(np.linalg.norm(kernel, axis=0), math.sqrt(0.8), rtol=1e-5)
    np.testing.assert_allclose(y, x @ kernel, rtol=1e-5, atol=1e-6)
    layer.gain.assign(np.arange(1, 8, dtype="float32"))
    np.testing.assert_allclose(np.linalg.norm(numpy(layer.kernel), axis=0), np.arange(1, 8),
                               rtol=1e-5)
    # The direction's own scale does not matter.
    layer.direction.assign(numpy(layer.direction) * 3.0)
    np.testing.assert_allclose(np.linalg.norm(numpy(layer.kernel), axis=0), np.arange(1, 8),
                               rtol=1e-5)


def reference_glu_convolution(layer, x, causal):
    """The convolution written out with NumPy: zero borders, then A * sigmoid(B)."""
    kernel, bias = numpy(layer.kernel), numpy(layer.bias)
    k = kernel.shape[0]
    left = k - 1 if causal else (k - 1) // 2
    padded = np.pad(x, ((0, 0), (left, k - 1 - left), (0, 0)))
    out = np.stack([np.einsum("bkd,kdo->bo", padded[:, i:i + k], kernel)
                    for i in range(x.shape[1])], axis=1) + bias
    a, b = np.split(out, 2, axis=-1)
    return a * sigmoid(b)


@pytest.mark.jax
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("kernel_size", [2, 3, 4])
def test_gated_convolution_is_the_written_out_convolution(causal, kernel_size):
    keras.utils.set_random_seed(1)
    layer = GatedConvolution(5, kernel_size, causal=causal)
    x = floats(2, 6, 4)
    np.testing.assert_allclose(numpy(layer(x)), reference_glu_convolution(layer, x, causal),
                               rtol=1e-5, atol=1e-5)


def test_a_causal_convolution_never_reads_a_later_position():
    keras.utils.set_random_seed(2)
    layer = GatedConvolution(5, 3, causal=True)
    x = floats(1, 6, 4)
    changed = x.copy()
    changed[0, 4] += 1.0
    before, after = numpy(layer(x)), numpy(layer(changed))
    np.testing.assert_array_equal(before[:, :4], after[:, :4])
    assert not np.allclose(before[:, 4], after[:, 4])


@pytest.mark.jax
def test_steps_through_the_rolling_window_equal_the_whole_sequence():
    keras.utils.set_random_seed(3)
    layer = GatedConvolution(5, 3, causal=True)
    x = floats(2, 7, 4)
    full = numpy(layer(x))
    window = np.zeros((2, 2, 4), "float32")
    columns = []
    for t in range(7):
        column, window = layer.step(x[:, t:t + 1], window)
        columns.append(numpy(column))
        np.testing.assert_array_equal(numpy(window)[:, -1], x[:, t])
    np.testing.assert_allclose(np.concatenate(columns, axis=1), full, atol=1e-5)


@pytest.mark.jax
def test_encoder_block_outputs_do_not_depend_on_the_batchs_padding():
    keras.utils.set_random_seed(4)
    block = ConvEncoderBlock(6, 3)
    x = floats(2, 4, 6)
    mask = np.array([[True, True, True, False], [True, True, False, False]])
    # The same sentences padded to 9 positions, the padding filled with noise.
    longer = np.concatenate([x, floats(2, 5, 6)], axis=1)
    longer_mask = np.pad(mask, ((0, 0), (0, 5)))
    x = np.where(mask[..., None], x, 7.0)
    short, long = numpy(block(x, mask=mask)), numpy(block(longer, mask=longer_mask))
    np.testing.assert_allclose(short[mask], long[:, :4][mask], atol=1e-6)
    # The residual formula: (GLU(conv(x)) + x) * sqrt(1/2).
    expected = (reference_glu_convolution(block.convolution, x * mask[..., None], False) + x)
    np.testing.assert_allclose(short, expected * math.sqrt(0.5), atol=1e-5)


@pytest.mark.jax
def test_attention_follows_the_papers_equations():
    keras.utils.set_random_seed(5)
    layer = ConvS2SAttention(4)
    h, g = floats(2, 3, 6), floats(2, 3, 4)
    keys, values = floats(2, 5, 4), floats(2, 5, 4)
    mask = np.array([[True] * 5, [True, True, False, False, False]])
    out, weights = (numpy(x) for x in layer(h, g, keys, values, mask))
    w_d, b_d = numpy(layer.in_projection.kernel), numpy(layer.in_projection.bias)
    w_o, b_o = numpy(layer.out_projection.kernel), numpy(layer.out_projection.bias)
    d = (h @ w_d + b_d + g) * math.sqrt(0.5)
    scores = np.where(mask[:, None, :], np.einsum("btf,bsf->bts", d, keys), -np.inf)
    a = np.exp(scores - scores.max(-1, keepdims=True))
    a /= a.sum(-1, keepdims=True)
    m = mask.sum(1)[:, None, None]  # the real source tokens, not the padded length
    c = np.einsum("bts,bsf->btf", a, values) * m * np.sqrt(1.0 / m)
    np.testing.assert_allclose(weights, a, atol=1e-6)
    np.testing.assert_allclose(out, (c @ w_o + b_o + h) * math.sqrt(0.5), rtol=1e-5, atol=1e-5)
    assert np.all(weights[1, :, 2:] == 0.0)


@pytest.mark.jax
def test_decoder_block_steps_equal_its_whole_sequence_pass():
    keras.utils.set_random_seed(6)
    block = ConvDecoderBlock(6, 3, embedding_dim=4, dropout=0.3)
    x, g = floats(2, 5, 6), floats(2, 5, 4)
    keys, values = floats(2, 4, 4), floats(2, 4, 4)
    mask = np.array([[True] * 4, [True, True, True, False]])
    full, full_weights = (numpy(t) for t in block(x, g, keys, values, mask))
    window = np.zeros((2, 2, 6), "float32")
    for t in range(5):
        y, weights, window = block.step(x[:, t:t + 1], window, g[:, t:t + 1], keys, values, mask)
        np.testing.assert_allclose(numpy(y)[:, 0], full[:, t], atol=1e-5)
        np.testing.assert_allclose(numpy(weights)[:, 0], full_weights[:, t], atol=1e-6)


def test_learned_positions_add_a_row_per_position_and_zero_padding():
    layer = LearnedPositionalEmbedding(10, 4, max_length=6)
    ids = np.array([[5, 6, 0], [7, 0, 0]], "int32")
    embedded = numpy(layer(ids))
    words, places = numpy(layer.token_embeddings), numpy(layer.position_embeddings)
    np.testing.assert_allclose(embedded[0, 1], words[6] + places[1], rtol=1e-6)
    assert np.all(embedded[ids == 0] == 0.0)
    np.testing.assert_array_equal(numpy(layer.compute_mask(ids)), ids != 0)
    step = numpy(layer(np.array([[7], [5]], "int32"), start_index=np.array([4, 2], "int32")))
    np.testing.assert_allclose(step[:, 0], [words[7] + places[4], words[5] + places[2]],
                               rtol=1e-6)
    assert np.std(words) == pytest.approx(0.1, rel=0.3)  # the paper's N(0, 0.1)
