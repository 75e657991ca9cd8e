"""Bahdanau (additive) attention, optionally weight-normalized."""

import math

import keras
from keras import ops

# The masking and softmax are shared with LuongAttention so both layers mask identically.
from keras_nmt.layers.luong_attention import _attend, _resolve_masks


@keras.saving.register_keras_serializable(package="keras_nmt")
class BahdanauAttention(keras.layers.Layer):
    """Additive attention of Bahdanau et al. (2014), optionally weight-normalized.

    Bahdanau, Cho and Bengio (2014), "Neural Machine Translation by Jointly Learning to Align and
    Translate", §3.1 and appendix A.1.2. With `s_{t-1}` the previous decoder state (the query) and
    `h_j` an annotation (the memory):

        e_tj = vᵀ tanh(W s_{t-1} + U h_j),   α_tj = softmax_j(e_tj),   c_t = Σ_j α_tj h_j.

    `U h_j` does not depend on the decoder step: `project_memory(memory)` computes it once per
    source sentence (the paper's appendix makes the same remark), and
    `call(..., projected_memory=keys)` reuses it at every step.

    `normalize=True` gives the weight-normalized form (Salimans and Kingma, 2016, "Weight
    Normalization"), as in `tfa.seq2seq.BahdanauAttention(normalize=True)`:

        e_tj = (g · v / ||v||)ᵀ tanh(W s_{t-1} + U h_j + b)

    with a learned scalar `g` initialized to `sqrt(1 / units)` and a bias `b` initialized to 0.

    Args:
        units: the size of the hidden layer of the alignment model (the output size of `W`
            and `U`, and of `v`).
        normalize: whether to use the weight-normalized score.
        **kwargs: base `keras.layers.Layer` arguments (`name`, `dtype`, ...).

    Call arguments:
        query: `(batch, query_dim)` (one decoder step) or `(batch, target_len, query_dim)`.
        memory: `(batch, source_len, memory_dim)`, the encoder annotations.
        memory_mask: `(batch, source_len)` bool, `False` at padding. When `None`, Keras'
            implicit mask of `memory` or `mask[1]` is used.
        projected_memory: `(batch, source_len, units)` from `project_memory(memory)`; computed
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
        >>> attention = BahdanauAttention(units=32)
        >>> memory = np.random.rand(2, 7, 16).astype("float32")   # (batch, source_len, dim)
        >>> keys = attention.project_memory(memory)               # once per source sentence
        >>> state = np.random.rand(2, 24).astype("float32")       # (batch, decoder_units)
        >>> context, weights = attention(state, memory, projected_memory=keys)
        >>> context.shape, weights.shape
        (TensorShape([2, 16]), TensorShape([2, 7]))
    """

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
        """The key projection `U h_j`, computed once per source sentence.

        In a functional graph, `project_memory` adds a node for the inner `memory_layer`. That
        is fine in a `keras.Model` subclass that rebuilds its graph in `__init__` (the twins'
        pattern: `.keras` files reload), but a plain `keras.Model(inputs, outputs)` holding
        that node cannot be reloaded from `.keras`; there, call the layer without
        `projected_memory` (the keys are then computed inside the call).

        Args:
            memory: `(batch, source_len, memory_dim)`.

        Returns:
            `(batch, source_len, units)`.
        """
        return self.memory_layer(memory)

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
            keys = self.project_memory(memory)  # (batch, source_len, units)
        processed = self.query_layer(query)  # (batch, target_len, units)
        hidden = ops.expand_dims(processed, axis=2) + ops.expand_dims(keys, axis=1)
        # hidden: (batch, target_len, source_len, units)
        v = self.v
        if self.normalize:
            hidden = hidden + self.b
            v = self.g * v * ops.rsqrt(ops.sum(ops.square(v)))  # (units,), norm g
        scores = ops.sum(ops.tanh(hidden) * ops.cast(v, hidden.dtype), axis=-1)
        # scores: (batch, target_len, source_len)
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
        config.update({"units": self.units, "normalize": self.normalize})
        return config
