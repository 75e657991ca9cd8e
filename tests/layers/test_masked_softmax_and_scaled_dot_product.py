"""masked_softmax, and scaled_dot_product_attention against NumPy written from Vaswani et al.
(2017), eq. 1."""

import keras
import numpy as np
import pytest
from keras import ops

from keras_nmt.layers.attention import masked_softmax, scaled_dot_product_attention


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_masked_softmax_gives_masked_positions_and_empty_rows_no_weight(dtype):
    scores = np.array([[1.0, 2.0, 3.0], [0.5, 0.5, 9.0], [4.0, -1.0, 0.0]], dtype)
    mask = np.array([[True, True, False], [False, False, False], [True, True, True]])
    weights = np.asarray(masked_softmax(ops.convert_to_tensor(scores), mask), "float64")
    allowed = np.exp([1.0, 2.0])
    np.testing.assert_allclose(weights[0], [*(allowed / allowed.sum()), 0.0], rtol=2e-3)
    assert weights[1].tolist() == [0.0, 0.0, 0.0]  # nothing to attend to: no weight at all
    everything = np.exp([4.0, -1.0, 0.0])
    np.testing.assert_allclose(weights[2], everything / everything.sum(), rtol=2e-3)
    np.testing.assert_allclose(np.asarray(masked_softmax(scores[2:])), weights[2:], rtol=2e-3)


def _reference(query, key, value, mask):
    """softmax(Q Kᵀ / √d_k) V head by head, in NumPy, from the paper, not from the function."""
    batch, heads, query_len, d_k = query.shape
    key_len = key.shape[2]
    mask = np.broadcast_to(
        np.ones((query_len, key_len), bool) if mask is None else mask, (batch, query_len, key_len)
    )
    output = np.zeros((batch, heads, query_len, value.shape[-1]))
    weights = np.zeros((batch, heads, query_len, key_len))
    for b in range(batch):
        for h in range(heads):
            q, k, v = query[b, h], key[b, h], value[b, h]  # (len, d)
            scores = q @ k.T / np.sqrt(d_k)  # (query_len, key_len)
            scores = np.where(mask[b], scores, -np.inf)
            exp = np.exp(scores - scores.max(axis=-1, keepdims=True))
            weights[b, h] = exp / exp.sum(axis=-1, keepdims=True)
            output[b, h] = weights[b, h] @ v
    return output, weights


def _qkv(batch, query_len, key_len, heads, d_k, d_v, seed=0):
    rng = np.random.default_rng(seed)
    query = rng.normal(size=(batch, heads, query_len, d_k)).astype("float32")
    key = rng.normal(size=(batch, heads, key_len, d_k)).astype("float32")
    value = rng.normal(size=(batch, heads, key_len, d_v)).astype("float32")
    return query, key, value


@pytest.mark.parametrize(
    "shape, mask_kind",
    [
        ((2, 3, 5, 2, 4, 4), None),  # batch, query_len, key_len, heads, d_k, d_v
        ((2, 3, 5, 2, 4, 4), "padding"),  # (batch, 1, key_len): padded source positions
        ((2, 4, 4, 1, 8, 3), "causal"),  # (query_len, key_len): d_v != d_k, one head
        ((3, 1, 6, 4, 2, 2), "random"),  # (batch, query_len, key_len), one query: a decoding step
    ],
)
def test_matches_numpy_reference(shape, mask_kind):
    batch, query_len, key_len, heads, d_k, d_v = shape
    query, key, value = _qkv(*shape)
    rng = np.random.default_rng(1)
    if mask_kind is None:
        mask = None
    elif mask_kind == "padding":
        mask = np.array([[[1, 1, 1, 0, 0]], [[1, 1, 1, 1, 1]]], bool)
    elif mask_kind == "causal":
        mask = np.tril(np.ones((query_len, key_len), bool))
    else:
        mask = rng.random((batch, query_len, key_len)) < 0.6
        mask[:, :, 0] = True  # no fully masked row

    output, weights = scaled_dot_product_attention(query, key, value, mask=mask)
    output, weights = ops.convert_to_numpy(output), ops.convert_to_numpy(weights)
    expected_output, expected_weights = _reference(query, key, value, mask)

    assert output.shape == (batch, heads, query_len, d_v)
    assert weights.shape == (batch, heads, query_len, key_len)
    np.testing.assert_allclose(weights, expected_weights, atol=1e-6)
    np.testing.assert_allclose(output, expected_output, atol=1e-5)
    np.testing.assert_allclose(weights.sum(axis=-1), 1.0, atol=1e-6)
    if mask is not None:  # masked keys get exactly nothing
        hidden = ~np.broadcast_to(mask, (batch, query_len, key_len))[:, None]
        assert np.all(weights[np.broadcast_to(hidden, weights.shape)] == 0.0)


def test_scaling_by_the_square_root_of_the_depth():
    # Q = K = one unit vector scaled by 4 in d_k = 16 dimensions: the score is 16 / √16 = 4
    # against 0 for an orthogonal key, so the weights are softmax([4, 0]).
    query = np.zeros((1, 1, 1, 16), "float32")
    query[..., 0] = 4.0
    key = np.zeros((1, 1, 2, 16), "float32")
    key[0, 0, 0, 0] = 4.0
    key[0, 0, 1, 1] = 4.0
    value = np.array([[[[1.0], [0.0]]]], "float32")  # (1, 1, 2, 1)
    output, weights = scaled_dot_product_attention(query, key, value)
    expected = np.exp(4.0) / (np.exp(4.0) + 1.0)
    np.testing.assert_allclose(
        ops.convert_to_numpy(weights)[0, 0, 0], [expected, 1 - expected], rtol=1e-6
    )
    np.testing.assert_allclose(ops.convert_to_numpy(output)[0, 0, 0, 0], expected, rtol=1e-6)


def test_a_fully_masked_query_gets_zero_weights():
    query, key, value = _qkv(1, 2, 3, 2, 4, 4)
    mask = np.array([[[1, 1, 0], [0, 0, 0]]], bool)  # query 1 may see nothing
    output, weights = scaled_dot_product_attention(query, key, value, mask=mask)
    assert not ops.convert_to_numpy(weights)[:, :, 1].any()
    assert not ops.convert_to_numpy(output)[:, :, 1].any()
    expected_output, _ = _reference(query[:, :, :1], key, value, mask[:, :1])
    np.testing.assert_allclose(ops.convert_to_numpy(output)[:, :, :1], expected_output, atol=1e-5)


def test_dropout_acts_on_the_weights_in_training_only():
    query, key, _ = _qkv(2, 3, 5, 2, 4, 4)
    # One-hot values: each output row is then the (dropped-out) weight row itself.
    value = np.broadcast_to(np.eye(5, dtype="float32")[None, None], (2, 2, 5, 5))
    dropout = keras.layers.Dropout(0.5, seed=0)
    _, expected_weights = _reference(query, key, value, None)
    output, _ = scaled_dot_product_attention(query, key, value, dropout=dropout)
    np.testing.assert_allclose(ops.convert_to_numpy(output), expected_weights, atol=1e-6)
    output, weights = scaled_dot_product_attention(
        query, key, value, dropout=dropout, training=True
    )
    # The weights returned are those before dropout; the values are averaged with each weight
    # either dropped (0) or kept and scaled by 1 / (1 - rate) = 2.
    np.testing.assert_allclose(ops.convert_to_numpy(weights), expected_weights, atol=1e-6)
    dropped = ops.convert_to_numpy(output)  # (batch, heads, q_len, k_len)
    zero = dropped == 0.0
    assert 0 < zero.sum() < zero.size
    np.testing.assert_allclose(dropped[~zero], 2 * expected_weights[~zero], rtol=1e-5)
