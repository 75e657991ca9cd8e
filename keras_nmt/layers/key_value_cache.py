"""A decoder's key/value cache: what `MultiHeadAttention` (`attention.py`) adds to decode one
position at a time.

A Transformer decoder that emits one token per step would recompute the keys and values of every
earlier position at every step. Instead each self-attention layer keeps them, projected and heads
first, in caches `(batch, num_heads, positions, key_dim)`: a step writes its own position
(`write_position`) and attends over what is written (`attended_positions`). The caches keep their
shape within a decoding loop, so a `while_loop` can carry them; between steps `grown_caches`
doubles a cache that TensorFlow lets change length (`zero_cache` says when).
"""

import keras
from keras import ops

# A decoding step attends over the written cache positions rounded up to a multiple of this.
ATTENDED_MULTIPLE = 8
# Positions a self-attention cache sized by a tensor starts with under TensorFlow (see
# `zero_cache`); it doubles whenever a step needs more (`grown_caches`).
FIRST_CACHE_LENGTH = 16


def write_position(key_cache, value_cache, new_key, new_value, index):
    """The caches with each row's new key and value written at its own position.

    A scatter of one slot per row and head (rows may sit at different steps), not a one-hot
    select that reads the whole cache; TensorFlow still copies the cache first, since the
    attention reads it too (it writes in place only for a single reader).

    Args:
        key_cache, value_cache: `(batch, num_heads, positions, key_dim)`.
        new_key, new_value: `(batch, num_heads, 1, key_dim)`, the new position's projections.
        index: int32 `(batch,)`: the position each row writes.

    Returns:
        `(key_cache, value_cache)`, the same shapes.
    """
    rows, heads = ops.shape(index)[0], new_key.shape[1]
    slot = ops.stack([
        ops.repeat(ops.arange(rows, dtype="int32"), heads),
        ops.tile(ops.arange(heads, dtype="int32"), [rows]),
        ops.repeat(index, heads),
    ], axis=1)  # (batch * heads, 3): [row, head, position], row-major like `_flat_slots`
    return (ops.scatter_update(key_cache, slot, _flat_slots(new_key, key_cache.dtype)),
            ops.scatter_update(value_cache, slot, _flat_slots(new_value, value_cache.dtype)))


def attended_positions(key, value, mask, index):
    """The part of the caches a step attends over: `(key, value, mask)`.

    Under TensorFlow, the positions up to the largest `index` only, rounded up to a multiple of
    `ATTENDED_MULTIPLE` (the rest are masked for every row, and weigh exactly 0), so a step costs
    what has been decoded, not the cache's size; the rounding keeps the number of shapes small
    (the CPU kernels made and kept for each new shape cost memory) and never leaves a softmax
    over one position, which Keras warns of. `jax.jit` needs static shapes, so under JAX the
    step attends over the whole cache.

    Args:
        key, value: `(batch, num_heads, positions, key_dim)`, the caches after this step's write.
        mask: optional bool broadcastable to `(batch, query_len, positions)`.
        index: int32 `(batch,)`: the positions this step wrote.
    """
    if keras.backend.backend() != "tensorflow":
        return key, value, mask
    block = ATTENDED_MULTIPLE
    written = ops.minimum((ops.max(index) + block) // block * block, ops.shape(key)[2])
    return (key[:, :, :written], value[:, :, :written],
            None if mask is None else mask[..., :written])


def zero_cache(batch, num_heads, max_length, key_dim, dtype):
    """An empty self-attention cache `(batch, num_heads, positions, key_dim)` for `max_length`
    decoding steps: all of them, or under TensorFlow at first fewer, which grow.

    A python int `max_length` (a fixed shape: under JAX, or caches asked for at full size) gets
    all its positions. A tensor under TensorFlow (the batch's own longest limit, a dynamic
    shape in a traced function) gets at most `FIRST_CACHE_LENGTH`, and `grown_caches` doubles
    the cache when a step needs more: each step's write copies the whole cache
    (`write_position`) and beam search reorders it, so a cache sized by the batch's longest
    source would make every step of a short output pay for that source
    (docs/results/serving-load.md).

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


def _flat_slots(new, dtype):
    """A new position's keys or values `(batch, heads, 1, key_dim)` as the `(batch * heads,
    key_dim)` updates of a scatter, in `dtype`."""
    return ops.cast(ops.reshape(new, (-1, new.shape[-1])), dtype)
