"""Luong (multiplicative / global) attention: dot, general and concat scores."""

import keras
from keras import ops

# Large enough that exp(fill - max_score) underflows to exactly 0 in float32, small enough to stay
# finite. The softmax is always computed in float32 (see `_attend`), so one value serves all dtypes.
_MASK_FILL = -1e9

_SCORES = ("dot", "general", "concat")


def _resolve_masks(query_mask, memory_mask, mask):
    """Picks the explicit masks first, then Keras' implicit `mask=[query_mask, memory_mask]`."""
    if mask is not None:
        if isinstance(mask, (list, tuple)):
            implicit_query_mask = mask[0] if len(mask) > 0 else None
            implicit_memory_mask = mask[1] if len(mask) > 1 else None
        else:
            # A single mask tensor can only be meant for the memory: the query mask only zeroes
            # outputs, whereas a memory mask changes which positions are attended.
            implicit_query_mask, implicit_memory_mask = None, mask
        if query_mask is None:
            query_mask = implicit_query_mask
        if memory_mask is None:
            memory_mask = implicit_memory_mask
    return query_mask, memory_mask


def _attend(scores, memory, memory_mask, query_mask, squeeze):
    """Masked softmax over source positions, then the weighted sum of the memory.

    Shared by `LuongAttention` and `BahdanauAttention` (imported there) so that both layers mask
    in exactly the same way.

    Args:
        scores: `(batch, target_len, source_len)` unnormalized scores.
        memory: `(batch, source_len, memory_dim)`.
        memory_mask: `(batch, source_len)` bool/int or `None`; `False`/0 marks padding.
        query_mask: `(batch,)` or `(batch, target_len)` (matching the query before the time axis
            was added) or `None`; masked query positions get an all-zero context, as in
            `keras.layers.Attention`.
        squeeze: whether the query had rank 2 and the time axis must be removed again.

    Returns:
        `(context, weights)`: `(batch, [target_len,] memory_dim)` and
        `(batch, [target_len,] source_len)`; masked source positions have weight exactly 0, and a
        row whose sources are all masked has all-zero weights (no NaN).
    """
    # Softmax in float32 whatever the compute dtype: float16 overflows on the fill value and loses
    # too much precision when normalizing long rows.
    scores = ops.cast(scores, "float32")  # (batch, target_len, source_len)
    if memory_mask is not None:
        valid = ops.expand_dims(ops.cast(memory_mask, "bool"), axis=-2)  # (batch, 1, source_len)
        scores = ops.where(valid, scores, _MASK_FILL)
    weights = ops.softmax(scores, axis=-1)  # (batch, target_len, source_len)
    if memory_mask is not None:
        # The fill already gives 0 when at least one source is valid; `where` also turns the
        # uniform row of a fully masked source into zeros instead of attending to padding.
        weights = ops.where(valid, weights, 0.0)
    weights = ops.cast(weights, memory.dtype)
    context = ops.matmul(weights, memory)  # (batch, target_len, memory_dim)
    if squeeze:
        context = ops.squeeze(context, axis=1)  # (batch, memory_dim)
        weights = ops.squeeze(weights, axis=1)  # (batch, source_len)
    if query_mask is not None:
        keep = ops.expand_dims(ops.cast(query_mask, "bool"), axis=-1)  # (batch, [target_len,] 1)
        context = ops.where(keep, context, ops.zeros_like(context))
    return context, weights


@keras.saving.register_keras_serializable(package="keras_nmt")
class LuongAttention(keras.layers.Layer):
    """Global attention of Luong et al. (2015) with the `dot`, `general` and `concat` scores.

    Luong, Pham and Manning (2015), "Effective Approaches to Attention-based Neural Machine
    Translation", §3.1, eq. 8. With `h_t` the decoder state (the query) and `h̄_s` an encoder
    output (the memory):

    - `dot`:     `score(h_t, h̄_s) = h_tᵀ h̄_s` (query and memory sizes must match; no weights).
    - `general`: `score(h_t, h̄_s) = h_tᵀ W_a h̄_s`.
    - `concat`:  `score(h_t, h̄_s) = v_aᵀ tanh(W_a [h_t; h̄_s])`, computed as
      `v_aᵀ tanh(W_q h_t + W_m h̄_s)` with `W_a = [W_q | W_m]`, so the memory half can be
      precomputed.

    Then `a_t = softmax_s(score)` over the unmasked source positions and `c_t = Σ_s a_t(s) h̄_s`.

    The memory-side product (`W_a h̄_s` for `general`, `W_m h̄_s` for `concat`, `h̄_s` itself for
    `dot`) does not depend on the decoder step: `project_memory(memory)` computes it once per
    source sentence, and `call(..., projected_memory=keys)` reuses it at every step.

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

    Call arguments:
        query: `(batch, query_dim)` (one decoder step) or `(batch, target_len, query_dim)`.
        memory: `(batch, source_len, memory_dim)`, the encoder outputs.
        memory_mask: `(batch, source_len)` bool, `False` at padding. When `None`, Keras'
            implicit mask of `memory` or `mask[1]` is used.
        projected_memory: `(batch, source_len, keys_dim)` from `project_memory(memory)`; computed
            inside the call when `None`.
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

        In a functional graph, `project_memory` adds a node for the inner `memory_layer`. That
        is fine in a `keras.Model` subclass that rebuilds its graph in `__init__` (the twins'
        pattern: `.keras` files reload), but a plain `keras.Model(inputs, outputs)` holding
        that node cannot be reloaded from `.keras`; there, call the layer without
        `projected_memory` (the keys are then computed inside the call).

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
                f"LuongAttention(score={self.score!r}) does not know its projection size yet: "
                "pass `units=` to the constructor, or call the layer once before "
                "`project_memory`."
            )
        return self.memory_layer(memory)  # (batch, source_len, units)

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
        if self.score == "concat":
            processed = self.query_layer(query)  # (batch, target_len, units)
            hidden = ops.tanh(
                ops.expand_dims(processed, axis=2) + ops.expand_dims(keys, axis=1)
            )  # (batch, target_len, source_len, units)
            scores = ops.sum(hidden * self.v, axis=-1)  # (batch, target_len, source_len)
        else:
            scores = ops.matmul(query, ops.swapaxes(keys, -1, -2))  # (batch, tgt_len, src_len)
        if self.scale_weight is not None:
            scores = scores * ops.cast(self.scale_weight, scores.dtype)
        context, weights = _attend(scores, memory, memory_mask, query_mask, squeeze)
        # context: (batch, [target_len,] memory_dim); weights: (batch, [target_len,] source_len)
        if return_attention_scores:
            return context, weights
        return context

    def compute_mask(self, query, previous_mask=None):
        # The context keeps the query's mask; the weights carry none.
        if isinstance(previous_mask, (list, tuple)):
            previous_mask = previous_mask[0] if previous_mask else None
        return previous_mask

    def get_config(self):
        config = super().get_config()
        config.update({"score": self.score, "scale": self.scale, "units": self.units})
        return config
