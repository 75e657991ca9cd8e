"""Scaled dot-product attention, the equation at the heart of the Transformer, in `keras.ops`."""

import math

import keras
from keras import ops


def scaled_dot_product_attention(query, key, value, mask=None, dropout=None, training=None):
    """`softmax(Q Kᵀ / √d_k) V` for every head (Vaswani et al., 2017, section 3.2.1, eq. 1).

    Each query position gets a weighted average of the values, weighted by how well its query
    matches each key: the dot products `Q Kᵀ` are divided by `√d_k` (so that their variance, and
    with it the softmax's saturation, does not grow with the depth), positions where `mask` is
    False get a large negative score before the softmax, and so a weight of exactly 0 after it.

    Args:
        query: `Q`, `(batch, num_heads, query_len, d_k)`, the heads already projected. Heads
            come before positions, so each head's product is a plain batched matrix product:
            a decoder's key and value caches, read at every step, are kept in this layout.
        key: `K`, `(batch, num_heads, key_len, d_k)`.
        value: `V`, `(batch, num_heads, key_len, d_v)`.
        mask: optional bool, broadcastable to `(batch, query_len, key_len)` and the same for
            every head: True where a query may attend to a key. A query whose keys are all masked
            gets weights of 0 (an output of 0), not a uniform average.
        dropout: optional callable `dropout(weights, training=training)` applied to the weights
            before they average the values (e.g. a `keras.layers.Dropout`, section 5.4).
        training: passed to `dropout`.

    Returns:
        `(output, weights)`: `output` `(batch, num_heads, query_len, d_v)`, and the attention
        weights `(batch, num_heads, query_len, key_len)` (before dropout), each row summing to 1
        over the keys it may see.

    Example:
        >>> q = k = v = keras.random.normal((2, 4, 5, 8))   # batch 2, 4 heads, length 5, 8 dims
        >>> causal = np.tril(np.ones((5, 5), bool))        # (query_len, key_len)
        >>> output, weights = scaled_dot_product_attention(q, k, v, mask=causal)
        >>> output.shape, weights.shape
        ((2, 4, 5, 8), (2, 4, 5, 5))

    References:
        Vaswani et al., 2017, "Attention Is All You Need", https://arxiv.org/abs/1706.03762
    """
    # Q / √d_k before the product: the same scores as (Q Kᵀ) / √d_k, on the smaller tensor.
    query = ops.multiply(query, ops.cast(1.0 / math.sqrt(query.shape[-1]), query.dtype))
    scores = ops.einsum("bhqd,bhkd->bhqk", query, key)  # Q Kᵀ / √d_k, (batch, heads, q_len, k_len)
    if mask is not None:
        mask = ops.expand_dims(ops.cast(mask, "bool"), -3)  # (batch, 1, q_len, k_len): every head
        scores = ops.where(mask, scores, _large_negative(scores.dtype))
    weights = ops.softmax(scores, axis=-1)
    if mask is not None:
        weights = ops.where(mask, weights, 0.0)  # a fully masked row: 0, not uniform
    dropped = weights if dropout is None else dropout(weights, training=training)
    output = ops.einsum("bhqk,bhkd->bhqd", dropped, value)  # (batch, heads, q_len, d_v)
    return output, weights


def _large_negative(dtype):
    # exp(-1e9 - max) is 0 in float32; float16 overflows at -65504, so -3e4 there.
    return -3e4 if keras.backend.standardize_dtype(dtype) == "float16" else -1e9
