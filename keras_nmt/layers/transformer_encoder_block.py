"""One Transformer encoder layer: self-attention and a position-wise feed-forward network."""

import keras
from keras import ops

from keras_nmt.layers.attention import MultiHeadAttention


@keras.saving.register_keras_serializable(package="keras_nmt")
class TransformerEncoderBlock(keras.layers.Layer):
    """Transformer encoder layer (Vaswani et al., 2017, section 3.1).

    Two sub-layers, multi-head self-attention (`MultiHeadAttention`, `attention.py`, where the
    softmax is) and the feed-forward network `FFN(x) = max(0, x W1 + b1) W2 + b2`, each with
    dropout on its output and a residual connection. Post-norm (the paper, default):
    `x = LayerNorm(x + Dropout(Sublayer(x)))`.
    Pre-norm (`pre_norm=True`, Xiong et al., 2020): `x = x + Dropout(Sublayer(LayerNorm(x)))`,
    which trains without a long warm-up; the model then adds a final LayerNorm after the stack.

    Padding keys are masked out of the self-attention with the Keras mask of the inputs (from
    `PositionalEmbedding(mask_zero=True)`); the mask is passed on to the outputs.

    Args:
        d_model: model width (input and output size).
        num_heads: attention heads; `d_model` must be divisible by it.
        ff_dim: inner size of the feed-forward network.
        dropout: dropout rate on attention weights and on each sub-layer's output.
        pre_norm: LayerNorm before each sub-layer instead of after the residual sum.
        activation: the feed-forward network's inner activation, a Keras name: `"relu"` (the
            paper) or `"swish"` (`x * sigmoid(x)`, Marian's OPUS-MT models).
        norm_epsilon: the LayerNorms' epsilon (transformers' Marian models use 1e-5).
        **kwargs: base `Layer` arguments.

    Call arguments:
        inputs: `(batch, src_len, d_model)`.
        mask: optional bool `(batch, src_len)`, True on real tokens (taken from `inputs`).
        training: dropout on when True.

    Returns:
        `(batch, src_len, d_model)`.

    Example:
        >>> block = TransformerEncoderBlock(d_model=16, num_heads=2, ff_dim=32)
        >>> y = block(x, mask=ids != 0)  # x: (batch, src_len, 16)

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
        self.supports_masking = True
        policy = self.dtype_policy
        self.self_attention = MultiHeadAttention(
            num_heads, d_model // num_heads, dropout=dropout, dtype=policy, name="self_attention"
        )
        self.self_attention_norm = keras.layers.LayerNormalization(
            epsilon=norm_epsilon, dtype=policy, name="self_attention_norm"
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
        inputs_shape = tuple(inputs_shape)
        self.self_attention.build(inputs_shape, inputs_shape)
        self.self_attention_norm.build(inputs_shape)
        self.ffn_inner.build(inputs_shape)
        self.ffn_outer.build(inputs_shape[:-1] + (self.ff_dim,))
        self.ffn_norm.build(inputs_shape)
        self.built = True

    def call(self, inputs, mask=None, training=None):
        attention_mask = None
        if mask is not None:
            attention_mask = ops.cast(mask, "bool")[:, None, :]  # (batch, 1, src_len): keys only
        x = inputs  # (batch, src_len, d_model)

        h = self.self_attention_norm(x) if self.pre_norm else x
        h = self.self_attention(h, h, attention_mask=attention_mask, training=training)
        x = x + self.dropout_layer(h, training=training)
        if not self.pre_norm:
            x = self.self_attention_norm(x)

        h = self.ffn_norm(x) if self.pre_norm else x
        h = self.ffn_outer(self.ffn_inner(h))  # (batch, src_len, ff_dim) -> (.., d_model)
        x = x + self.dropout_layer(h, training=training)
        if not self.pre_norm:
            x = self.ffn_norm(x)
        return x  # (batch, src_len, d_model)

    def compute_mask(self, inputs, mask=None):
        return mask

    def compute_output_shape(self, inputs_shape):
        return tuple(inputs_shape)

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
