"""One Transformer decoder layer, for training on whole sequences and for cached step decoding."""

import keras
from keras import ops

from keras_nmt.layers.cached_multi_head_attention import CachedMultiHeadAttention


@keras.saving.register_keras_serializable(package="keras_nmt")
class TransformerDecoderBlock(keras.layers.Layer):
    """Transformer decoder layer (Vaswani et al., 2017, section 3.1) with incremental decoding.

    Three sub-layers: causal multi-head self-attention, multi-head cross-attention over the encoder
    output (the memory), and the feed-forward network `max(0, x W1 + b1) W2 + b2`; each with
    dropout on its output, a residual connection and LayerNorm, after the sum (post-norm, the
    paper, default) or before the sub-layer (`pre_norm=True`, Xiong et al., 2020).

    Whole-sequence mode (training, scoring): self-attention is causal and skips padding keys of
    the target; cross-attention skips padding keys of the source.

    Step mode (incremental decoding; `self_key_cache`, `self_value_cache` and `step` given): the
    input is the single token at position `step`. Its self-attention keys and values are written
    into fixed-size per-layer caches `(batch, max_length, num_heads, head_dim)` at `step`, and the
    query attends to cache positions `<= step` only, so a sentence costs `n` steps each attending
    over the cache instead of rerunning the prefix. With `cross_key`/`cross_value` (from
    `cross_attention_cache(memory)`, once per sentence), the memory is not projected again at
    every step.

    Args:
        d_model: model width.
        num_heads: attention heads; `d_model` must be divisible by it.
        ff_dim: inner size of the feed-forward network.
        dropout: dropout rate on attention weights and on each sub-layer's output.
        pre_norm: LayerNorm before each sub-layer instead of after the residual sum.
        activation: the feed-forward network's inner activation, a Keras name: `"relu"` (the
            paper) or `"swish"` (`x * sigmoid(x)`, Marian's OPUS-MT models).
        norm_epsilon: the LayerNorms' epsilon (transformers' Marian models use 1e-5).
        **kwargs: base `Layer` arguments.

    Call arguments:
        inputs: `(batch, tgt_len, d_model)`; `(batch, 1, d_model)` in step mode.
        memory: encoder output `(batch, src_len, d_model)`; may be None when `cross_key` and
            `cross_value` are given.
        inputs_mask: optional bool `(batch, tgt_len)`, True on real target tokens (whole-sequence
            mode; taken from the Keras mask of `inputs`).
        memory_mask: optional bool `(batch, src_len)`, True on real source tokens.
        self_key_cache, self_value_cache: step mode, `(batch, max_length, num_heads, head_dim)`.
        step: step mode, int `(batch,)`: the position of the input token.
        cross_key, cross_value: optional precomputed cross-attention keys and values
            `(batch, src_len, num_heads, head_dim)`.
        return_head_attention: also return the cross-attention weights of every head.
        only_cross_attention_cache: return `cross_attention_cache(memory)` only; `inputs` is
            ignored (pass None, which also keeps a Keras mask off the results). This lets a
            functional encoder model precompute the cross-attention keys and values through a
            call of this layer.
        training: dropout on when True.

    Returns:
        `(outputs (batch, tgt_len, d_model), attention (batch, tgt_len, src_len), self_key,
        self_value)`: `attention` is the cross-attention averaged over heads; in step mode
        `self_key`/`self_value` are the updated caches, in whole-sequence mode the self-attention
        keys and values of every position `(batch, tgt_len, num_heads, head_dim)` (the cache of
        the whole prefix; the same structure in both modes keeps functional graphs valid). With
        `return_head_attention=True`, the per-head weights `(batch, num_heads, tgt_len, src_len)`
        are appended. With `only_cross_attention_cache=True`: `(cross_key, cross_value)`.

    Example:
        >>> block = TransformerDecoderBlock(d_model=16, num_heads=2, ff_dim=32)
        >>> y, attention, _, _ = block(x, memory, inputs_mask=tgt != 0, memory_mask=src != 0)
        >>> cross_key, cross_value = block.cross_attention_cache(memory)
        >>> y_t, attention_t, key_cache, value_cache = block(
        ...     x_t, None, memory_mask=src != 0, self_key_cache=key_cache,
        ...     self_value_cache=value_cache, step=step, cross_key=cross_key,
        ...     cross_value=cross_value)

    References:
        Vaswani et al., 2017, "Attention Is All You Need", https://arxiv.org/abs/1706.03762;
        Xiong et al., 2020, "On Layer Normalization in the Transformer Architecture",
        https://arxiv.org/abs/2002.04745
    """

    def __init__(
        self,
        d_model,
        num_heads,
        ff_dim,
        dropout=0.1,
        pre_norm=False,
        activation="relu",
        norm_epsilon=1e-6,
        **kwargs,
    ):
        super().__init__(**kwargs)
        if d_model % num_heads:
            raise ValueError(f"d_model={d_model} is not divisible by num_heads={num_heads}")
        self.d_model = d_model
        self.num_heads = num_heads
        self.ff_dim = ff_dim
        self.dropout = dropout
        self.pre_norm = pre_norm
        self.activation = activation
        self.norm_epsilon = norm_epsilon
        self.head_dim = d_model // num_heads
        self.supports_masking = True
        policy = self.dtype_policy
        self.self_attention = CachedMultiHeadAttention(
            num_heads, self.head_dim, dropout=dropout, dtype=policy, name="self_attention"
        )
        self.self_attention_norm = keras.layers.LayerNormalization(
            epsilon=norm_epsilon, dtype=policy, name="self_attention_norm"
        )
        self.cross_attention = CachedMultiHeadAttention(
            num_heads, self.head_dim, dropout=dropout, dtype=policy, name="cross_attention"
        )
        self.cross_attention_norm = keras.layers.LayerNormalization(
            epsilon=norm_epsilon, dtype=policy, name="cross_attention_norm"
        )
        self.ffn_inner = keras.layers.Dense(
            ff_dim, activation=activation, dtype=policy, name="ffn_inner"
        )
        self.ffn_outer = keras.layers.Dense(d_model, dtype=policy, name="ffn_outer")
        self.ffn_norm = keras.layers.LayerNormalization(
            epsilon=norm_epsilon, dtype=policy, name="ffn_norm"
        )
        self.dropout_layer = keras.layers.Dropout(dropout, dtype=policy, name="dropout")

    def build(self, inputs_shape):
        # The memory has the same width as the inputs, so the inputs' shape builds everything.
        inputs_shape = tuple(inputs_shape)
        self.self_attention.build(inputs_shape, inputs_shape)
        self.self_attention_norm.build(inputs_shape)
        self.cross_attention.build(inputs_shape, inputs_shape)
        self.cross_attention_norm.build(inputs_shape)
        self.ffn_inner.build(inputs_shape)
        self.ffn_outer.build(inputs_shape[:-1] + (self.ff_dim,))
        self.ffn_norm.build(inputs_shape)
        self.built = True

    def cross_attention_cache(self, memory):
        """Projects the memory `(batch, src_len, d_model)` once for all decoding steps.

        Returns:
            `(cross_key, cross_value)`, each `(batch, src_len, num_heads, head_dim)`.
        """
        return self.cross_attention.project_key_value(memory)

    def call(
        self,
        inputs,
        memory=None,
        inputs_mask=None,
        memory_mask=None,
        self_key_cache=None,
        self_value_cache=None,
        step=None,
        cross_key=None,
        cross_value=None,
        return_head_attention=False,
        only_cross_attention_cache=False,
        training=None,
    ):
        if only_cross_attention_cache:
            # A layer call (not the method) so that a functional encoder model can hold it.
            return self.cross_attention_cache(memory)
        step_mode = self_key_cache is not None
        if step_mode and step is None:
            raise ValueError("step mode (`self_key_cache` given) needs `step`.")
        if memory is None and cross_key is None:
            raise ValueError("give `memory` or the precomputed `cross_key` and `cross_value`.")
        x = inputs  # (batch, tgt_len, d_model); tgt_len is 1 in step mode

        # Masked (causal) self-attention.
        h = self.self_attention_norm(x) if self.pre_norm else x
        if step_mode:
            cache_len = ops.shape(self_key_cache)[1]
            step = ops.reshape(ops.cast(step, "int32"), (-1, 1))  # (batch, 1)
            seen = ops.arange(cache_len, dtype="int32")[None, :] <= step  # (batch, max_length)
            h, self_key_cache, self_value_cache = self.self_attention(
                h,
                h,
                attention_mask=seen[:, None, :],  # (batch, 1, max_length)
                key_cache=self_key_cache,
                value_cache=self_value_cache,
                cache_update_index=step,
                training=training,
            )
        else:
            length = ops.shape(x)[1]
            positions = ops.arange(length, dtype="int32")
            causal = positions[None, :, None] >= positions[None, None, :]  # (1, tgt_len, tgt_len)
            if inputs_mask is not None:
                # Keys only: a padded query row keeps its causal prefix and never goes empty.
                causal = ops.logical_and(causal, ops.cast(inputs_mask, "bool")[:, None, :])
            h, self_key_cache, self_value_cache = self.self_attention(
                h, h, attention_mask=causal, return_key_value=True, training=training
            )
        x = x + self.dropout_layer(h, training=training)
        if not self.pre_norm:
            x = self.self_attention_norm(x)

        # Cross-attention over the memory.
        memory_attention_mask = None
        if memory_mask is not None:
            memory_attention_mask = ops.cast(memory_mask, "bool")[:, None, :]  # (batch, 1, src_len)
        h = self.cross_attention_norm(x) if self.pre_norm else x
        if cross_key is not None:
            h, head_attention, _, _ = self.cross_attention(
                h,
                None,
                attention_mask=memory_attention_mask,
                key_cache=cross_key,
                value_cache=cross_value,
                return_attention_scores=True,
                training=training,
            )
        else:
            h, head_attention = self.cross_attention(
                h,
                memory,
                attention_mask=memory_attention_mask,
                return_attention_scores=True,
                training=training,
            )
        # head_attention: (batch, num_heads, tgt_len, src_len)
        x = x + self.dropout_layer(h, training=training)
        if not self.pre_norm:
            x = self.cross_attention_norm(x)

        # Position-wise feed-forward network.
        h = self.ffn_norm(x) if self.pre_norm else x
        h = self.ffn_outer(self.ffn_inner(h))  # (batch, tgt_len, ff_dim) -> (.., d_model)
        x = x + self.dropout_layer(h, training=training)
        if not self.pre_norm:
            x = self.ffn_norm(x)

        attention = ops.mean(head_attention, axis=1)  # (batch, tgt_len, src_len)
        # Every mode returns the same structure: a layer reused in functional graphs (training,
        # step) must keep the output count of its first call.
        outputs = (x, attention, self_key_cache, self_value_cache)
        if return_head_attention:
            outputs += (head_attention,)
        return outputs

    def compute_mask(self, inputs, previous_mask=None):
        return previous_mask

    def get_config(self):
        config = super().get_config()
        config.update(
            {
                "d_model": self.d_model,
                "num_heads": self.num_heads,
                "ff_dim": self.ff_dim,
                "dropout": self.dropout,
                "pre_norm": self.pre_norm,
                "activation": self.activation,
                "norm_epsilon": self.norm_epsilon,
            }
        )
        return config
