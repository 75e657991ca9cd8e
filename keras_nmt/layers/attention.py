"""Attention, in one place: every score and the one softmax that turns scores into weights.

Read from the top; each part sits under its equation.

1. `masked_softmax`: `α = softmax(scores)` over the positions a query may see; the one softmax
   of every attention in the library.
2. `scaled_dot_product_attention`: `softmax(Q Kᵀ / √d_k) V` (Vaswani et al. 2017, eq. 1).
3. `MultiHeadAttention`: `Concat(head_1, ..., head_h) W^O`, `head_i = Attention(Q W_i^Q,
   K W_i^K, V W_i^V)` (§3.2.2): the Transformer's encoder and decoder blocks. A decoder keeps
   the keys and values of the positions it has decoded: `key_value_cache.py` (written in by
   `call` when it is given a cache, nothing else changes).
4. `SourceAttention`: a recurrent decoder's state `h_t` attends over the encoder outputs `h̄_s`:
   `α_t = masked_softmax(score(h_t, h̄_s))`, `c_t = Σ_s α_t(s) h̄_s`. Its two scores:
5. `BahdanauAttention`: `score = vᵀ tanh(W s_{t-1} + U h_j)` (additive; Bahdanau et al. 2014).
6. `LuongAttention`: `dot`, `general`, `concat` (Luong et al. 2015, eq. 8).
7. `ConvS2SAttention`: one ConvS2S decoder layer's attention, `a_ij = softmax_j(d_i · z_j)`,
   `c_i = √m · Σ_j a_ij (z_j + e_j) · √½` (Gehring et al. 2017, §3.3): keys the encoder
   output, values the encoder output plus the source embedding.

References:
    Vaswani et al., 2017, "Attention Is All You Need", https://arxiv.org/abs/1706.03762;
    Bahdanau, Cho and Bengio, 2014, "Neural Machine Translation by Jointly Learning to Align and
    Translate", https://arxiv.org/abs/1409.0473;
    Luong, Pham and Manning, 2015, "Effective Approaches to Attention-based Neural Machine
    Translation", https://arxiv.org/abs/1508.04025;
    Gehring, Auli, Grangier, Yarats and Dauphin, 2017, "Convolutional Sequence to Sequence
    Learning", https://arxiv.org/abs/1705.03122
"""

import math

import keras
from keras import ops

from keras_nmt.layers.key_value_cache import attended_positions, write_position
from keras_nmt.layers.layer_config import ArgumentsConfig
from keras_nmt.layers.weight_norm_dense import WeightNormDense

# 1. The masked softmax -----------------------------------------------------------------------


def masked_softmax(scores, mask=None):
    """Attention weights from scores, over the last axis, counting only the allowed positions.

        α_i = exp(s_i) / Σ_{j allowed} exp(s_j)   where `mask` allows i,   α_i = 0 elsewhere.

    A masked score is replaced by a large negative number, so that its `exp` is exactly 0 and
    the allowed weights sum to 1. A row with no allowed position would come out uniform (every
    score equal): `where` makes it all zeros instead, so a query never attends to padding.

    Args:
        scores: `(..., key_len)`; the softmax runs in their dtype.
        mask: optional bool broadcastable to `scores`, True where a position may be attended.

    Returns:
        Weights shaped like `scores`, each row summing to 1 over its allowed positions (0 for a
        row with none).

    Example:
        >>> masked_softmax(np.array([[1.0, 2.0, 3.0]]), np.array([[True, True, False]]))
        # [[0.269, 0.731, 0.0]]
    """
    if mask is None:
        return ops.softmax(scores, axis=-1)
    scores = ops.where(mask, scores, _large_negative(scores.dtype))
    weights = ops.softmax(scores, axis=-1)
    return ops.where(mask, weights, 0.0)  # a fully masked row: 0, not uniform


def _large_negative(dtype):
    # exp(-1e9 - max) is 0 in float32; float16 overflows at -65504, so -3e4 there.
    return -3e4 if keras.backend.standardize_dtype(dtype) == "float16" else -1e9


# 2. Scaled dot-product attention -------------------------------------------------------------


def scaled_dot_product_attention(query, key, value, mask=None, dropout=None, training=None):
    """`softmax(Q Kᵀ / √d_k) V` for every head (Vaswani et al., 2017, section 3.2.1, eq. 1).

    Each query position gets a weighted average of the values, weighted by how well its query
    matches each key: the dot products `Q Kᵀ` are divided by `√d_k` (so that their variance, and
    with it the softmax's saturation, does not grow with the depth), and `masked_softmax` gives
    the positions where `mask` is False a weight of exactly 0.

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
    """
    # Q / √d_k before the product: the same scores as (Q Kᵀ) / √d_k, on the smaller tensor.
    query = ops.multiply(query, ops.cast(1.0 / math.sqrt(query.shape[-1]), query.dtype))
    scores = ops.einsum("bhqd,bhkd->bhqk", query, key)  # Q Kᵀ / √d_k, (batch, heads, q_len, k_len)
    if mask is not None:
        mask = ops.expand_dims(ops.cast(mask, "bool"), -3)  # (batch, 1, q_len, k_len): every head
    weights = masked_softmax(scores, mask)
    dropped = weights if dropout is None else dropout(weights, training=training)
    output = ops.einsum("bhqk,bhkd->bhqd", dropped, value)  # (batch, heads, q_len, d_v)
    return output, weights


# 3. Multi-head attention ---------------------------------------------------------------------


@keras.saving.register_keras_serializable(package="keras_nmt")
class MultiHeadAttention(keras.layers.MultiHeadAttention):
    """Multi-head attention (Vaswani et al., 2017, section 3.2.2), heads through our equation:

        MultiHead(Q, K, V) = Concat(head_1, ..., head_h) W^O,
        head_i = scaled_dot_product_attention(Q W_i^Q, K W_i^K, V W_i^V).

    The weights `W^Q`, `W^K`, `W^V` (every head's at once) and `W^O` are those of
    `keras.layers.MultiHeadAttention` (`query_dense`, `key_dense`, `value_dense`, `output_dense`;
    also `dropout` on the weights), so its constructor, `build` and config are Keras'. `call`
    is ours, and differs from Keras' in two ways:

    - Masks are explicit: `attention_mask` `(batch, query_len, key_len)` (or broadcastable) is the
      only mask used; Keras masks carried by the inputs are ignored, so a padded query row never
      becomes fully masked.
    - Keys and values may come from a cache (a decoder's, one position at a time):
      - static (`key_cache`/`value_cache` given, `cache_update_index=None`): the cached, already
        projected keys and values are used as they are and `value`/`key` are ignored; the
        cross-attention of a decoder whose memory `project_key_value` projected once per
        sentence.
      - updated (`cache_update_index` given): the key and value of the single new position
        (`value` `(batch, 1, dim)`) are projected and written into the fixed-size caches at
        position `cache_update_index[b]` of each row, and the query attends over the caches
        (`key_value_cache.write_position`, `attended_positions`); the caller masks the
        positions not yet written.

    Call arguments:
        query: `(batch, query_len, dim)`.
        value: `(batch, key_len, dim)`; `(batch, 1, dim)` with `cache_update_index`; may be None
            with a static cache.
        key: optional, like `value` (defaults to `value`).
        attention_mask: optional bool, broadcastable to `(batch, query_len, key_len)`.
        key_cache, value_cache: optional `(batch, num_heads, cache_len, key_dim)` projected keys
            and values, heads first (`project_key_value`): the layout the attention's products
            read as it is.
        cache_update_index: optional int `(batch,)`: where to write the new key and value.
        return_attention_scores: also return the weights `(batch, num_heads, query_len, key_len)`
            (with `cache_update_index` under TensorFlow, `key_len` is the positions attended).
        training: dropout on the attention weights when True.

    Returns:
        `attention_output` `(batch, query_len, dim)`; with `return_attention_scores`,
        `(attention_output, scores)`; with a cache, `(attention_output, key_cache, value_cache)` or
        `(attention_output, scores, key_cache, value_cache)`.

    Example:
        >>> mha = MultiHeadAttention(num_heads=2, key_dim=8)
        >>> y = mha(x, x, attention_mask=causal)                     # x: (batch, length, 16)
        >>> key_cache = value_cache = ops.zeros((batch, 2, 10, 8))   # 2 heads, 10 positions
        >>> y_t, key_cache, value_cache = mha(x_t, x_t, key_cache=key_cache,
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
        """`K W^K` and `V W^V` of `key`, `value` `(batch, length, dim)`, heads first:
        `(batch, heads, length, key_dim)` each."""
        if value is None:
            value = key
        return _heads(self._key_dense, key), _heads(self._value_dense, value)

    def call(self, query, value, key=None, attention_mask=None, key_cache=None, value_cache=None,
             cache_update_index=None, return_attention_scores=False, training=None):
        if key is None:
            key = value
        query = _heads(self._query_dense, query)  # Q W^Q: (batch, heads, query_len, key_dim)
        if key_cache is None:
            if cache_update_index is not None:
                raise ValueError("`cache_update_index` needs `key_cache` and `value_cache`.")
            key, value = self.project_key_value(key, value)  # (batch, heads, key_len, key_dim)
        elif cache_update_index is None:
            key, value = key_cache, value_cache  # static cache, already projected
        attended_key, attended_value, attended_mask = key, value, attention_mask
        if cache_update_index is not None:
            # The new position's key and value join the caches; the query reads what is written.
            index = ops.reshape(ops.cast(cache_update_index, "int32"), (-1,))  # (batch,)
            key, value = write_position(
                key_cache, value_cache, *self.project_key_value(key, value), index
            )
            attended_key, attended_value, attended_mask = attended_positions(
                key, value, attention_mask, index
            )
        # (batch, heads, query_len, key_dim), (batch, heads, query_len, key_len)
        attention_output, scores = scaled_dot_product_attention(
            query, attended_key, attended_value, attended_mask,
            dropout=self._dropout_layer, training=training,
        )
        attention_output = ops.transpose(attention_output, (0, 2, 1, 3))  # (batch, q_len, heads, d)
        # Concat(head_1, ..., head_h) W^O: (batch, query_len, dim)
        attention_output = _project(self._output_dense, attention_output)
        outputs = (attention_output,)
        if return_attention_scores:
            outputs += (scores,)
        if key_cache is not None:
            outputs += (key, value)  # the caches, updated with `cache_update_index`
        return outputs[0] if len(outputs) == 1 else outputs

    def compute_output_spec(self, *args, **kwargs):
        # MultiHeadAttention's version knows neither the caches nor the explicit-mask call: trace.
        return keras.Operation.compute_output_spec(self, *args, **kwargs)


def _heads(dense, x):
    """The query, key or value projection `dense` of `x` `(batch, length, dim)`, heads first:
    `(batch, heads, length, key_dim)`, `scaled_dot_product_attention`'s layout."""
    return ops.transpose(_project(dense, x), (0, 2, 1, 3))


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


# 4. A recurrent decoder's attention over the source ------------------------------------------


class SourceAttention(ArgumentsConfig, keras.layers.Layer):
    """A decoder state attends over the encoder outputs (the memory); subclasses give the score.

        α_t = masked_softmax(score(h_t, h̄_s)) over the source positions s,
        c_t = Σ_s α_t(s) h̄_s.

    The memory-side half of the score does not depend on the decoder step:
    `project_memory(memory)` computes it once per source sentence, and
    `call(..., projected_memory=keys)` reuses it at every step. A subclass defines
    `project_memory(memory) -> keys` and `compute_scores(query, keys) -> (batch, target_len,
    source_len)`.

    The softmax runs in float32 whatever the compute dtype: float16 overflows on the mask's fill
    value and loses too much precision when normalizing long rows.

    In a functional graph, `project_memory` adds a node for the inner `memory_layer`. That is
    fine in a `keras.Model` subclass that rebuilds its graph in `__init__` (the twins' pattern:
    `.keras` files reload), but a plain `keras.Model(inputs, outputs)` holding that node cannot
    be reloaded from `.keras`; there, call the layer without `projected_memory` (the keys are
    then computed inside the call).

    Call arguments:
        query: `(batch, query_dim)` (one decoder step) or `(batch, target_len, query_dim)`.
        memory: `(batch, source_len, memory_dim)`, the encoder outputs.
        memory_mask: `(batch, source_len)` bool, `False` at padding. When `None`, Keras'
            implicit mask of `memory` or `mask[1]` is used.
        projected_memory: the keys from `project_memory(memory)`; computed inside the call when
            `None`.
        query_mask: `(batch,)` or `(batch, target_len)` bool; masked query positions get a zero
            context (as in `keras.layers.Attention`). When `None`, the query's implicit mask or
            `mask[0]` is used.
        mask: Keras' list `[query_mask, memory_mask]` (either may be `None`).
        return_attention_scores: when `True` (the default) return `(context, weights)`, else
            only `context`.

    Returns:
        `context` `(batch, [target_len,] memory_dim)` and `weights`
        `(batch, [target_len,] source_len)`: the attention distribution after masking and
        softmax; masked sources get exactly 0, and a fully masked row is all zeros.
    """

    def call(
        self,
        query,
        memory,
        memory_mask=None,
        projected_memory=None,
        query_mask=None,
        mask=None,
        return_attention_scores=True,
    ):
        query_mask, memory_mask = _resolve_masks(query_mask, memory_mask, mask)
        squeeze = len(query.shape) == 2
        if squeeze:
            query = ops.expand_dims(query, axis=1)  # (batch, 1, query_dim)
        # query: (batch, target_len, query_dim)
        keys = projected_memory
        if keys is None:
            keys = self.project_memory(memory)  # (batch, source_len, keys_dim)
        scores = self.compute_scores(query, keys)  # (batch, target_len, source_len)
        # Softmax in float32 (see the class docstring).
        scores = ops.cast(scores, "float32")
        valid = None
        if memory_mask is not None:
            valid = ops.expand_dims(ops.cast(memory_mask, "bool"), axis=-2)  # (batch, 1, src_len)
        weights = ops.cast(masked_softmax(scores, valid), memory.dtype)  # (batch, tgt_len, src_len)
        context = ops.matmul(weights, memory)  # c_t = Σ_s α_t(s) h̄_s: (batch, tgt_len, mem_dim)
        if squeeze:
            context = ops.squeeze(context, axis=1)  # (batch, memory_dim)
            weights = ops.squeeze(weights, axis=1)  # (batch, source_len)
        if query_mask is not None:
            keep = ops.expand_dims(ops.cast(query_mask, "bool"), axis=-1)  # (batch, [tgt_len,] 1)
            context = ops.where(keep, context, ops.zeros_like(context))
        if return_attention_scores:
            return context, weights
        return context

    def compute_mask(self, query, previous_mask=None):
        # The context keeps the query's mask; the weights carry none.
        if isinstance(previous_mask, (list, tuple)):
            previous_mask = previous_mask[0] if previous_mask else None
        return previous_mask


def _resolve_masks(query_mask, memory_mask, mask):
    """Picks the explicit masks first, then Keras' implicit `mask=[query_mask, memory_mask]`."""
    if not isinstance(mask, (list, tuple)):
        # A single mask tensor can only be meant for the memory: the query mask only zeroes
        # outputs, whereas a memory mask changes which positions are attended.
        mask = [None, mask]
    implicit_query_mask, implicit_memory_mask = [*mask, None, None][:2]
    return (implicit_query_mask if query_mask is None else query_mask,
            implicit_memory_mask if memory_mask is None else memory_mask)


# 5. Bahdanau's additive score ----------------------------------------------------------------


@keras.saving.register_keras_serializable(package="keras_nmt")
class BahdanauAttention(SourceAttention):
    """Additive attention of Bahdanau et al. (2014), optionally weight-normalized.

    Bahdanau, Cho and Bengio (2014), "Neural Machine Translation by Jointly Learning to Align and
    Translate", §3.1 and appendix A.1.2. With `s_{t-1}` the previous decoder state (the query) and
    `h_j` an annotation (the memory):

        e_tj = vᵀ tanh(W s_{t-1} + U h_j),   α_tj = softmax_j(e_tj),   c_t = Σ_j α_tj h_j.

    `U h_j` does not depend on the decoder step: `project_memory(memory)` computes it once per
    source sentence (the paper's appendix makes the same remark).

    `normalize=True` gives the weight-normalized form (Salimans and Kingma, 2016, "Weight
    Normalization"), as in `tfa.seq2seq.BahdanauAttention(normalize=True)`:

        e_tj = (g · v / ||v||)ᵀ tanh(W s_{t-1} + U h_j + b)

    with a learned scalar `g` initialized to `sqrt(1 / units)` and a bias `b` initialized to 0.

    Args:
        units: the size of the hidden layer of the alignment model (the output size of `W`
            and `U`, and of `v`).
        normalize: whether to use the weight-normalized score.
        **kwargs: base `keras.layers.Layer` arguments (`name`, `dtype`, ...).

    Call arguments and returns: those of `SourceAttention`; `projected_memory` is
    `(batch, source_len, units)`.

    Example:
        >>> attention = BahdanauAttention(units=32)
        >>> memory = np.random.rand(2, 7, 16).astype("float32")   # (batch, source_len, dim)
        >>> keys = attention.project_memory(memory)               # once per source sentence
        >>> state = np.random.rand(2, 24).astype("float32")       # (batch, decoder_units)
        >>> context, weights = attention(state, memory, projected_memory=keys)
        >>> context.shape, weights.shape
        (TensorShape([2, 16]), TensorShape([2, 7]))
    """

    config_arguments = ("units", "normalize")

    def __init__(self, units, normalize=False, **kwargs):
        super().__init__(**kwargs)
        if int(units) <= 0:
            raise ValueError(f"`units` must be a positive integer; received units={units}.")
        self.units = int(units)
        self.normalize = normalize
        self.supports_masking = True
        # Sub-layers rather than raw weights so that `project_memory` can build `U` on its own,
        # before the layer has seen a query (the models project the memory in `encode`).
        self.memory_layer = keras.layers.Dense(
            self.units, use_bias=False, dtype=self.dtype_policy, name="memory_layer"
        )
        self.query_layer = keras.layers.Dense(
            self.units, use_bias=False, dtype=self.dtype_policy, name="query_layer"
        )

    def build(self, query_shape, memory_shape=None):
        if not self.query_layer.built:
            self.query_layer.build(query_shape)
        if memory_shape is not None and not self.memory_layer.built:
            self.memory_layer.build(memory_shape)
        self.v = self.add_weight(name="v", shape=(self.units,), initializer="glorot_uniform")
        self.g = None
        self.b = None
        if self.normalize:
            self.g = self.add_weight(
                name="g",
                shape=(),
                initializer=keras.initializers.Constant(math.sqrt(1.0 / self.units)),
            )
            self.b = self.add_weight(name="b", shape=(self.units,), initializer="zeros")

    def project_memory(self, memory):
        """The key projection `U h_j` `(batch, source_len, units)` of `memory`
        `(batch, source_len, memory_dim)`, computed once per source sentence."""
        return self.memory_layer(memory)

    def compute_scores(self, query, keys):
        """`e_tj = vᵀ tanh(W s_{t-1} + U h_j)` for query `(batch, target_len, query_dim)` and keys
        `U h_j` `(batch, source_len, units)` -> `(batch, target_len, source_len)`."""
        processed = self.query_layer(query)  # W s_{t-1}: (batch, target_len, units)
        hidden = ops.expand_dims(processed, axis=2) + ops.expand_dims(keys, axis=1)
        # hidden: (batch, target_len, source_len, units)
        v = self.v
        if self.normalize:
            hidden = hidden + self.b
            v = self.g * v * ops.rsqrt(ops.sum(ops.square(v)))  # (units,), norm g
        return ops.sum(ops.tanh(hidden) * ops.cast(v, hidden.dtype), axis=-1)


# 6. Luong's scores ---------------------------------------------------------------------------

_SCORES = ("dot", "general", "concat")


@keras.saving.register_keras_serializable(package="keras_nmt")
class LuongAttention(SourceAttention):
    """Global attention of Luong et al. (2015) with the `dot`, `general` and `concat` scores.

    Luong, Pham and Manning (2015), "Effective Approaches to Attention-based Neural Machine
    Translation", §3.1, eq. 8. With `h_t` the decoder state (the query) and `h̄_s` an encoder
    output (the memory):

    - `dot`:     `score(h_t, h̄_s) = h_tᵀ h̄_s` (query and memory sizes must match; no weights).
    - `general`: `score(h_t, h̄_s) = h_tᵀ W_a h̄_s`.
    - `concat`:  `score(h_t, h̄_s) = v_aᵀ tanh(W_a [h_t; h̄_s])`, computed as
      `v_aᵀ tanh(W_q h_t + W_m h̄_s)` with `W_a = [W_q | W_m]`, so the memory half can be
      precomputed.

    Then `a_t = softmax_s(score)` over the unmasked source positions and `c_t = Σ_s a_t(s) h̄_s`
    (`SourceAttention`). The memory-side product (`W_a h̄_s` for `general`, `W_m h̄_s` for
    `concat`, `h̄_s` itself for `dot`) is `project_memory(memory)`, once per source sentence.

    `scale=True` multiplies the scores by one learned scalar initialized to 1, as
    `keras.layers.Attention(use_scale=True)` and `tfa.seq2seq.LuongAttention(scale=True)` do
    (rather than a fixed `1/sqrt(dim)`): the scalar lets the model sharpen or flatten the
    distribution. It applies to all three scores (for `concat` it is redundant with `v_a`).

    Args:
        score: `"dot"`, `"general"` or `"concat"`.
        scale: whether to multiply the scores by a learned scalar (initialized to 1).
        units: for `"general"`, the query size (the output size of `W_a`, which must equal the
            query's last dimension); for `"concat"`, the hidden size of `W_a` (any value).
            Ignored for `"dot"`. Defaults to the query's last dimension when the layer is built
            by a call; `project_memory` on a layer that has not yet been called needs it given.
        **kwargs: base `keras.layers.Layer` arguments (`name`, `dtype`, ...).

    Call arguments and returns: those of `SourceAttention`; `projected_memory` is
    `(batch, source_len, keys_dim)`.

    Example:
        >>> attention = LuongAttention("general")
        >>> memory = np.random.rand(2, 7, 16).astype("float32")   # (batch, source_len, dim)
        >>> query = np.random.rand(2, 16).astype("float32")       # (batch, dim)
        >>> context, weights = attention(query, memory, memory_mask=memory.sum(-1) > 0)
        >>> context.shape, weights.shape
        (TensorShape([2, 16]), TensorShape([2, 7]))
        >>> keys = attention.project_memory(memory)               # once per source sentence
        >>> context, weights = attention(query, memory, projected_memory=keys)
    """

    config_arguments = ("score", "scale", "units")

    def __init__(self, score="dot", scale=False, units=None, **kwargs):
        super().__init__(**kwargs)
        if score not in _SCORES:
            raise ValueError(f"`score` must be one of {_SCORES}; received score={score!r}.")
        if units is not None and int(units) <= 0:
            raise ValueError(f"`units` must be a positive integer; received units={units}.")
        self.score = score
        self.scale = scale
        self.units = None if units is None else int(units)
        self.supports_masking = True
        # Sub-layers rather than raw weights so that `project_memory` can build the memory side on
        # its own before the layer has seen a query. They are created here when their size is
        # known, else in `build` from the query size.
        self.memory_layer = None
        self.query_layer = None
        if self.units is not None:
            self._make_projections(self.units)

    def _make_projections(self, units):
        if self.score in ("general", "concat"):
            self.memory_layer = keras.layers.Dense(
                units, use_bias=False, dtype=self.dtype_policy, name="memory_layer"
            )
        if self.score == "concat":
            self.query_layer = keras.layers.Dense(
                units, use_bias=False, dtype=self.dtype_policy, name="query_layer"
            )

    def build(self, query_shape, memory_shape=None):
        query_dim = query_shape[-1]
        if self.memory_layer is None and self.score != "dot":
            self._make_projections(query_dim)
        if memory_shape is not None:
            memory_dim = memory_shape[-1]
            if self.score == "dot" and None not in (query_dim, memory_dim):
                if query_dim != memory_dim:
                    raise ValueError(
                        "The `dot` score needs query and memory of the same size; received "
                        f"query_dim={query_dim}, memory_dim={memory_dim}. Use `general`."
                    )
            if self.memory_layer is not None and not self.memory_layer.built:
                self.memory_layer.build(memory_shape)
        if self.score == "general" and self.memory_layer.units != query_dim:
            raise ValueError(
                f"The `general` score projects the memory to units={self.memory_layer.units}, "
                f"but the query has size {query_dim}; pass units={query_dim}."
            )
        if self.query_layer is not None and not self.query_layer.built:
            self.query_layer.build(query_shape)
        if self.score == "concat":
            self.v = self.add_weight(
                name="v", shape=(self.query_layer.units,), initializer="glorot_uniform"
            )
        self.scale_weight = None
        if self.scale:
            # Named `scale` in the weights; the attribute keeps the constructor's `scale` flag.
            self.scale_weight = self.add_weight(name="scale", shape=(), initializer="ones")

    def project_memory(self, memory):
        """The memory-side half of the score, computed once per source sentence.

        Args:
            memory: `(batch, source_len, memory_dim)`.

        Returns:
            `(batch, source_len, keys_dim)`: `memory` itself for `dot`, `W_a h̄_s`
            (`keys_dim = query_dim`) for `general`, `W_m h̄_s` (`keys_dim = units`) for `concat`.
        """
        if self.score == "dot":
            return memory
        if self.memory_layer is None:
            raise ValueError(
                f"LuongAttention(score={self.score!r}) does not know its projection size "
                "yet: pass `units=` to the constructor, or call the layer once before "
                "`project_memory`."
            )
        return self.memory_layer(memory)  # (batch, source_len, units)

    def compute_scores(self, query, keys):
        """Eq. 8 for query `h_t` `(batch, target_len, query_dim)` and the keys from
        `project_memory` -> `(batch, target_len, source_len)`."""
        if self.score == "concat":
            processed = self.query_layer(query)  # W_q h_t: (batch, target_len, units)
            hidden = ops.tanh(
                ops.expand_dims(processed, axis=2) + ops.expand_dims(keys, axis=1)
            )  # (batch, target_len, source_len, units)
            scores = ops.sum(hidden * self.v, axis=-1)  # v_aᵀ tanh(W_q h_t + W_m h̄_s)
        else:
            scores = ops.matmul(query, ops.swapaxes(keys, -1, -2))  # h_tᵀ (W_a) h̄_s
        if self.scale_weight is not None:
            scores = scores * ops.cast(self.scale_weight, scores.dtype)
        return scores


# 7. A ConvS2S decoder layer's attention ------------------------------------------------------

SQRT_HALF = math.sqrt(0.5)


@keras.saving.register_keras_serializable(package="keras_nmt")
class ConvS2SAttention(ArgumentsConfig, keras.layers.Layer):
    """The attention of one ConvS2S decoder layer over the encoder (Gehring et al. 2017, §3.3).

    With `h_i` the layer's convolution output at target position `i` (width `c`), `g_i` the
    embedding of the target token fed at `i`, `z_j` the encoder output at source position `j`
    and `e_j` the source embedding there (width `f`, the embedding size):

        d_i  = (W_d h_i + b_d + g_i) · √½        a decoder summary: the state and the previous
                                                 target word (`in_projection`, c -> f)
        a_ij = masked_softmax_j(d_i · z_j)       dot-product scores over the real source
                                                 positions; the keys are `z_j`
        c_i  = √m · Σ_j a_ij (z_j + e_j) · √½    the values add the embedding, so attention can
                                                 point at a word as well as its context
        out  = (W_o c_i + b_o + h_i) · √½        back to `c` (`out_projection`), a residual sum

    The values `(z_j + e_j) · √½` do not depend on the decoder: the model computes them once
    per sentence (its `"values"` memory) and passes them in. `√m` (§3.4, the paper's
    `m · √(1/m)`, `m` the sentence's own number of source tokens, not the padded length)
    undoes the variance a weighted average of `m` vectors loses. Every `√½` keeps the variance
    of a sum of two terms that of one. Every decoder layer has its own attention, which the
    next one reads ("multi-step" attention). Both projections are weight-normalised
    (`WeightNormDense`).

    Args:
        embedding_dim: `f`, the width of `g_i`, `z_j` and the values.
        **kwargs: base `Layer` arguments.

    Call arguments:
        inputs: `h`, `(batch, tgt_len, c)`.
        target_embedding: `g`, `(batch, tgt_len, f)`.
        keys: `z`, `(batch, src_len, f)`.
        values: `(z + e) · √½`, `(batch, src_len, f)`.
        memory_mask: bool `(batch, src_len)`, True on real source tokens.

    Returns:
        `(outputs (batch, tgt_len, c), weights (batch, tgt_len, src_len))`: the weights sum to
        1 over the real source tokens and are exactly 0 on padding.

    Example:
        >>> attention = ConvS2SAttention(embedding_dim=8)
        >>> out, weights = attention(h, g, keys, values, memory_mask=src != 0)
    """

    config_arguments = ("embedding_dim",)

    def __init__(self, embedding_dim, **kwargs):
        super().__init__(**kwargs)
        self.embedding_dim = embedding_dim
        self.supports_masking = True
        self.in_projection = WeightNormDense(embedding_dim, dtype=self.dtype_policy,
                                             name="in_projection")
        self.out_projection = None  # its width is the input's, known in `build`

    def build(self, inputs_shape):
        channels = inputs_shape[-1]
        self.in_projection.build(tuple(inputs_shape))
        self.out_projection = WeightNormDense(channels, dtype=self.dtype_policy,
                                              name="out_projection")
        self.out_projection.build(tuple(inputs_shape[:-1]) + (self.embedding_dim,))
        self.built = True

    def call(self, inputs, target_embedding, keys, values, memory_mask):
        half = ops.cast(SQRT_HALF, inputs.dtype)
        # d_i = (W_d h_i + b_d + g_i) · √½: (batch, tgt_len, f)
        d = (self.in_projection(inputs) + target_embedding) * half
        # a_ij = masked_softmax_j(d_i · z_j), in float32 (as `SourceAttention`)
        scores = ops.cast(ops.einsum("btf,bsf->bts", d, keys), "float32")  # (b, tgt, src)
        valid = ops.expand_dims(ops.cast(memory_mask, "bool"), axis=-2)  # (batch, 1, src_len)
        weights = ops.cast(masked_softmax(scores, valid), values.dtype)
        # c_i = √m · Σ_j a_ij v_j, with m the real source tokens of each sentence
        m = ops.sum(ops.cast(memory_mask, values.dtype), axis=1)[:, None, None]  # (batch, 1, 1)
        context = ops.matmul(weights, values) * ops.sqrt(m)  # (batch, tgt_len, f)
        # (W_o c_i + b_o + h_i) · √½: (batch, tgt_len, c)
        return (self.out_projection(context) + inputs) * half, weights

    def compute_mask(self, inputs, *args, **kwargs):
        return None
