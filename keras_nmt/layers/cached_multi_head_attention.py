"""`keras.layers.MultiHeadAttention` with explicit masks and key/value caches: fixed-size within a
call, grown between decoding steps where TensorFlow allows it (`zero_cache`, `grown_caches`)."""

import keras
from keras import ops

from keras_nmt.layers.scaled_dot_product_attention import scaled_dot_product_attention

# A decoding step attends over the written cache positions rounded up to a multiple of this.
ATTENDED_MULTIPLE = 8
# Positions a self-attention cache sized by a tensor starts with under TensorFlow (see
# `zero_cache`); it doubles whenever a step needs more (`grown_caches`).
FIRST_CACHE_LENGTH = 16


@keras.saving.register_keras_serializable(package="keras_nmt")
class CachedMultiHeadAttention(keras.layers.MultiHeadAttention):
    """Multi-head attention whose keys and values can come from, or be written to, a cache.

    The weights and projections are those of `keras.layers.MultiHeadAttention` (its `_query_dense`,
    `_key_dense`, `_value_dense`, `_output_dense`, `_dropout_layer`); the heads attend through our
    `scaled_dot_product_attention`, the paper's equation. `call` differs from Keras' in three ways:

    - Masks are explicit: `attention_mask` `(batch, query_len, key_len)` (or broadcastable) is the
      only mask used; Keras masks carried by the inputs are ignored, so a padded query row never
      becomes fully masked.
    - Static cache (`key_cache`/`value_cache` given, `cache_update_index=None`): the cached,
      already projected keys and values are used as they are and `value`/`key` are ignored. This
      is the cross-attention of a decoder whose memory was projected once per sentence by
      `project_key_value`.
    - Updated cache (`cache_update_index` given): the keys and values of the single new position
      (`value` `(batch, 1, dim)`) are projected and written into the fixed-size caches
      `(batch, num_heads, max_length, key_dim)` at position `cache_update_index[b]` of each row
      (a scatter of one slot per row and head, so rows may sit at different steps). The caches
      never change shape, so a decoding `while_loop` can carry them; the caller masks the
      positions not yet written. Under TensorFlow the query attends over the positions up to the
      largest `cache_update_index` only, rounded up to a multiple of `ATTENDED_MULTIPLE` (the
      rest are masked for every row, and weigh exactly 0), so a step costs what has been
      decoded, not the cache's size; `jax.jit` needs static shapes, so under JAX it attends over
      the whole cache.

    Call arguments:
        query: `(batch, query_len, dim)`.
        value: `(batch, key_len, dim)`; `(batch, 1, dim)` with `cache_update_index`; may be None
            with a static cache.
        key: optional, like `value` (defaults to `value`).
        attention_mask: optional bool, broadcastable to `(batch, query_len, key_len)`.
        key_cache, value_cache: optional `(batch, num_heads, cache_len, key_dim)` projected keys
            and values, heads first (`project_key_value`): the layout the attention's products
            read as it is, where keys stored position first were rearranged at every step.
        cache_update_index: optional int `(batch,)`: where to write the new key and value.
        return_attention_scores: also return the weights `(batch, num_heads, query_len, key_len)`
            (with `cache_update_index` under TensorFlow, `key_len` is the positions attended).
        training: dropout on the attention weights when True.

    Returns:
        `attention_output` `(batch, query_len, dim)`; with `return_attention_scores`,
        `(attention_output, scores)`; with a cache, `(attention_output, key_cache, value_cache)` or
        `(attention_output, scores, key_cache, value_cache)`.

    Example:
        >>> mha = CachedMultiHeadAttention(num_heads=2, key_dim=8)
        >>> key_cache = value_cache = ops.zeros((batch, 2, 10, 8))   # 2 heads, 10 positions
        >>> out, key_cache, value_cache = mha(x_t, x_t, key_cache=key_cache,
        ...     value_cache=value_cache, cache_update_index=step, attention_mask=seen)

    References:
        Vaswani et al., 2017, "Attention Is All You Need", https://arxiv.org/abs/1706.03762;
        the cache follows the design of `keras_hub.layers.CachedMultiHeadAttention`.
    """

    def build(self, query_shape, value_shape, key_shape=None):
        super().build(query_shape, value_shape, key_shape)
        # The projections act position by position, so a Keras mask on their input stays valid
        # on their output; saying so keeps them from warning that they drop it.
        for dense in (self._query_dense, self._key_dense, self._value_dense, self._output_dense):
            dense.supports_masking = True

    def project_key_value(self, key, value=None):
        """Projects `key`, `value` `(batch, length, dim)` to `(batch, heads, length, key_dim)`."""
        if value is None:
            value = key
        return _heads(self._key_dense, key), _heads(self._value_dense, value)

    def call(self, query, value, key=None, attention_mask=None, key_cache=None, value_cache=None,
             cache_update_index=None, return_attention_scores=False, training=None):
        if key is None:
            key = value
        query = _heads(self._query_dense, query)  # (batch, heads, query_len, key_dim)
        use_cache = key_cache is not None
        if not use_cache:
            if cache_update_index is not None:
                raise ValueError("`cache_update_index` needs `key_cache` and `value_cache`.")
            key, value = self.project_key_value(key, value)  # (batch, heads, key_len, key_dim)
        elif cache_update_index is None:
            key, value = key_cache, value_cache  # static cache, already projected
        else:
            new_key, new_value = self.project_key_value(key, value)  # (batch, heads, 1, key_dim)
            index = ops.reshape(ops.cast(cache_update_index, "int32"), (-1,))  # (batch,)
            # [row, head, position] of each row's new slot in each head, flat. A scatter, not a
            # one-hot select that reads the whole cache; TensorFlow still copies the cache first,
            # since the attention reads it too (it writes in place only for a single reader).
            rows, heads = ops.shape(index)[0], self._num_heads
            slot = ops.stack([
                ops.repeat(ops.arange(rows, dtype="int32"), heads),
                ops.tile(ops.arange(heads, dtype="int32"), [rows]),
                ops.repeat(index, heads),
            ], axis=1)  # (batch * heads, 3), row-major like `_flat_slots`
            key = ops.scatter_update(key_cache, slot, _flat_slots(new_key, key_cache.dtype))
            value = ops.scatter_update(value_cache, slot, _flat_slots(new_value, value_cache.dtype))
        attended = key, value, attention_mask
        if cache_update_index is not None and keras.backend.backend() == "tensorflow":
            # Positions past the largest index are masked for every row. Rounded up to a whole
            # block of positions: fewer shapes (the CPU kernels made and kept for each new shape
            # cost memory), and never a softmax over one position, which Keras warns of.
            block = ATTENDED_MULTIPLE
            written = ops.minimum((ops.max(index) + block) // block * block, ops.shape(key)[2])
            attended = (key[:, :, :written], value[:, :, :written],
                        None if attention_mask is None else attention_mask[..., :written])
        # (batch, heads, query_len, key_dim), (batch, heads, query_len, key_len)
        attention_output, scores = scaled_dot_product_attention(
            query, *attended, dropout=self._dropout_layer, training=training
        )
        attention_output = ops.transpose(attention_output, (0, 2, 1, 3))  # (batch, q_len, heads, d)
        attention_output = _project(self._output_dense, attention_output)  # (batch, query_len, dim)
        outputs = (attention_output,)
        if return_attention_scores:
            outputs += (scores,)
        if use_cache:
            outputs += (key, value)  # the caches, updated with `cache_update_index`
        return outputs[0] if len(outputs) == 1 else outputs

    def compute_output_spec(self, *args, **kwargs):
        # MultiHeadAttention's version knows neither the caches nor the explicit-mask call: trace.
        return keras.Operation.compute_output_spec(self, *args, **kwargs)


def zero_cache(batch, num_heads, max_length, key_dim, dtype):
    """An empty self-attention cache `(batch, num_heads, positions, key_dim)` for `max_length`
    decoding steps: all of them, or under TensorFlow at first fewer, which grow.

    A python int `max_length` (a fixed shape: under JAX, or caches asked for at full size) gets
    all its positions. A tensor under TensorFlow (the batch's own longest limit, a dynamic
    shape in a traced function) gets at most `FIRST_CACHE_LENGTH`, and `grown_caches` doubles
    the cache when a step needs more. Why: each step's scatter copies the whole cache (see
    `call`) and beam search reorders it, so a cache sized by the batch's longest source made
    every step of a short output pay for that source (docs/results/serving-load.md).

    Args:
        batch, num_heads, key_dim: the cache's other dimensions.
        max_length: python int, or int32 scalar tensor: the most steps the cache must hold.
        dtype: the cache's dtype.

    Returns:
        Zeros `(batch, num_heads, positions, key_dim)`.
    """
    full = (batch, num_heads, max_length, key_dim)
    if isinstance(max_length, int) or keras.backend.backend() != "tensorflow":
        return ops.zeros(full, dtype=dtype)
    first = ops.minimum(max_length, FIRST_CACHE_LENGTH)
    cache = ops.zeros((batch, num_heads, first, key_dim), dtype=dtype)
    if isinstance(cache.shape[2], int) and not _eager(cache):
        # TensorFlow worked the length out while tracing (a constant): a graph loop would keep
        # it fixed, and a fixed cache cannot grow, so it gets every position.
        return ops.zeros(full, dtype=dtype)
    return cache


def grown_caches(key_cache, value_cache, step):
    """The caches `(batch, heads, positions, key_dim)`, doubled (zeros appended) if a row's `step`
    is past their last position; unchanged otherwise.

    Only caches that may change shape grow: under TensorFlow, eager ones and those of a length
    unknown while tracing (a `while_loop` whose caches entered with an unknown length accepts
    any). A length fixed in a graph (a python `max_length`, always the case under JAX) already
    holds every step (`zero_cache`). Steps advance by one, so one doubling suffices.

    Args:
        key_cache, value_cache: from `zero_cache`, or grown.
        step: int32 `(batch, 1)`, the positions this step writes.

    Returns:
        `(key_cache, value_cache)`.
    """
    length = ops.shape(key_cache)[2]
    fixed = isinstance(length, int) and not _eager(key_cache)
    if keras.backend.backend() != "tensorflow" or fixed:
        return key_cache, value_cache
    return ops.cond(
        ops.max(step) >= length,
        lambda: (ops.concatenate([key_cache, ops.zeros_like(key_cache)], axis=2),
                 ops.concatenate([value_cache, ops.zeros_like(value_cache)], axis=2)),
        lambda: (key_cache, value_cache),
    )


def _eager(tensor):
    """Whether `tensor` holds values now (TensorFlow's eager tensors have `numpy`), rather than
    standing for them in a function being traced."""
    return hasattr(tensor, "numpy")


def _heads(dense, x):
    """The query, key or value projection `dense` of `x` `(batch, length, dim)`, heads first:
    `(batch, heads, length, key_dim)`, `scaled_dot_product_attention`'s layout."""
    return ops.transpose(_project(dense, x), (0, 2, 1, 3))


def _flat_slots(new, dtype):
    """A new position's keys or values `(batch, heads, 1, key_dim)` as the `(batch * heads,
    key_dim)` updates of a scatter, in `dtype`."""
    return ops.cast(ops.reshape(new, (-1, new.shape[-1])), dtype)


def _project(dense, x):
    """`dense(x)` for a position-wise `EinsumDense`, with every position in one block of rows.

    With a static sequence length (fixed-shape batches, e.g. `train_on_batch`), Keras 3.15's
    TensorFlow `einsum` turns these projections into a broadcasting batched matmul whose kernel
    gradient is one matrix per example, then a sum. As one `(1, batch * length, ...)` block the
    same projection is a single matmul forwards and backwards, on every backend.

    Args:
        dense: one of `MultiHeadAttention`'s projections ("abc,cde->abde" or "abcd,cde->abe").
        x: `(batch, length, ...)`.

    Returns:
        `dense(x)`, `(batch, length, ...)`.
    """
    batch_length = ops.shape(x)[:2]
    rows = dense(ops.reshape(x, (1, -1, *x.shape[2:])))  # (1, batch * length, ...)
    return ops.reshape(rows, (*batch_length, *rows.shape[2:]))
