"""One Transformer decoder layer, for training on whole sequences and for cached step decoding."""

import keras
from keras import ops

from keras_nmt.layers.key_value_cache import grown_caches
from keras_nmt.layers.transformer_encoder_block import TransformerEncoderBlock, key_mask


@keras.saving.register_keras_serializable(package="keras_nmt")
class TransformerDecoderBlock(TransformerEncoderBlock):
    """Transformer decoder layer (Vaswani et al., 2017, section 3.1) with incremental decoding.

    Three sub-layers: causal multi-head self-attention, multi-head cross-attention over the encoder
    output (the memory), both `MultiHeadAttention` (`attention.py`, where the softmax is), and
    the feed-forward network `max(0, x W1 + b1) W2 + b2`; each with
    dropout on its output, a residual connection and LayerNorm, after the sum (post-norm, the
    paper, default) or before the sub-layer (`pre_norm=True`, Xiong et al., 2020).

    `call` reads a whole target sequence (training, scoring): self-attention is causal and skips
    padding keys of the target; cross-attention skips padding keys of the source.

    `step` reads one token per row (incremental decoding): its self-attention keys and values are
    written into caches `(batch, num_heads, cache_len, head_dim)` at the row's position (doubled
    first when full, if their length may change: `key_value_cache.py`), and it attends to the cache
    positions written so far, so a sentence costs `n` steps each attending over the cache
    instead of rerunning the prefix. Cross-attention reads the memory's keys and values from
    `cross_attention_cache(memory)`, projected once per sentence.

    Args: those of `TransformerEncoderBlock`, whose sub-layers, residual sums and norms this
    block reuses; it adds the cross-attention (`attentions`).

    Call arguments:
        inputs: `(batch, tgt_len, d_model)`.
        memory: encoder output `(batch, src_len, d_model)`.
        inputs_mask: optional bool `(batch, tgt_len)`, True on real target tokens (taken from the
            Keras mask of `inputs`).
        memory_mask: optional bool `(batch, src_len)`, True on real source tokens.
        return_attention_scores: also return the cross-attention weights of every head.
        training: dropout on when True.

    Returns:
        `outputs` `(batch, tgt_len, d_model)`; with `return_attention_scores=True`,
        `(outputs, scores)`, `scores` `(batch, num_heads, tgt_len, src_len)`.

    Example:
        >>> block = TransformerDecoderBlock(d_model=16, num_heads=2, ff_dim=32)
        >>> y = block(x, memory, inputs_mask=tgt != 0, memory_mask=src != 0)
        >>> cross_key, cross_value = block.cross_attention_cache(memory)
        >>> y_t, scores_t, key_cache, value_cache = block.step(
        ...     x_t, step, key_cache, value_cache, cross_key, cross_value, memory_mask=src != 0)

    References:
        Vaswani et al., 2017, "Attention Is All You Need", https://arxiv.org/abs/1706.03762;
        Xiong et al., 2020, "On Layer Normalization in the Transformer Architecture",
        https://arxiv.org/abs/2002.04745
    """

    attentions = ("self_attention", "cross_attention")
    # Keras' own: the output spec is traced from `call` (which may also return the scores).
    compute_output_shape = keras.layers.Layer.compute_output_shape

    def call(
        self,
        inputs,
        memory,
        inputs_mask=None,
        memory_mask=None,
        return_attention_scores=False,
        training=None,
    ):
        x = inputs  # (batch, tgt_len, d_model)
        positions = ops.arange(ops.shape(x)[1], dtype="int32")
        causal = positions[None, :, None] >= positions[None, None, :]  # (1, tgt_len, tgt_len)
        if inputs_mask is not None:
            # Keys only: a padded query row keeps its causal prefix and never goes empty.
            causal = ops.logical_and(causal, ops.cast(inputs_mask, "bool")[:, None, :])
        h = self._before(self.self_attention_norm, x)
        h = self.self_attention(h, h, attention_mask=causal, training=training)
        x = self._after(self.self_attention_norm, x, h, training)

        h, scores = self.cross_attention(
            self._before(self.cross_attention_norm, x),
            memory,
            attention_mask=key_mask(memory_mask),
            return_attention_scores=True,
            training=training,
        )
        x = self._after(self.cross_attention_norm, x, h, training)

        x = self._feed_forward(x, training)
        return (x, scores) if return_attention_scores else x

    def cross_attention_cache(self, memory):
        """Projects the memory `(batch, src_len, d_model)` once for all decoding steps.

        Returns:
            `(cross_key, cross_value)`, each `(batch, num_heads, src_len, head_dim)`.
        """
        return self.cross_attention.project_key_value(memory)

    def step(self, inputs, step, key_cache, value_cache, cross_key, cross_value, memory_mask=None):
        """Decodes one token per row, the same numbers as `call` on the prefix (no dropout).

        Args:
            inputs: `(batch, 1, d_model)`, the tokens at positions `step`.
            step: int `(batch,)`: each row's position; rows may be at different positions.
            key_cache, value_cache: `(batch, num_heads, cache_len, head_dim)` self-attention keys
                and values of positions `< step` (what is after is never read); doubled first
                when `step` is past their end and their length may change (`grown_caches`).
            cross_key, cross_value: `cross_attention_cache(memory)`.
            memory_mask: optional bool `(batch, src_len)`, True on real source tokens.

        Returns:
            `(outputs (batch, 1, d_model), scores (batch, num_heads, 1, src_len), key_cache,
            value_cache)`: the caches (perhaps grown) hold this step's key and value at `step`
            too.
        """
        x = inputs
        step = ops.reshape(ops.cast(step, "int32"), (-1, 1))  # (batch, 1)
        key_cache, value_cache = grown_caches(key_cache, value_cache, step)
        seen = ops.arange(ops.shape(key_cache)[2], dtype="int32")[None, :] <= step
        h = self._before(self.self_attention_norm, x)
        h, key_cache, value_cache = self.self_attention(
            h,
            h,
            attention_mask=seen[:, None, :],  # (batch, 1, max_length)
            key_cache=key_cache,
            value_cache=value_cache,
            cache_update_index=step,
            training=False,
        )
        x = self._after(self.self_attention_norm, x, h, training=False)

        h, scores, _, _ = self.cross_attention(
            self._before(self.cross_attention_norm, x),
            None,
            attention_mask=key_mask(memory_mask),
            key_cache=cross_key,
            value_cache=cross_value,
            return_attention_scores=True,
            training=False,
        )
        x = self._after(self.cross_attention_norm, x, h, training=False)

        x = self._feed_forward(x, training=False)
        return x, scores, key_cache, value_cache
