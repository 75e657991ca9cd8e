"""One Transformer encoder layer: self-attention and a position-wise feed-forward network."""

import keras
from keras import ops

from keras_nmt.layers.attention import MultiHeadAttention
from keras_nmt.layers.layer_config import ArgumentsConfig


@keras.saving.register_keras_serializable(package="keras_nmt")
class TransformerEncoderBlock(ArgumentsConfig, keras.layers.Layer):
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

    config_arguments = ("d_model", "num_heads", "ff_dim", "dropout", "pre_norm", "activation",
                        "norm_epsilon")
    # The attention sub-layers, each with the LayerNorm `<name>_norm` of its residual sum, made
    # and built in this order before the feed-forward network (the decoder adds cross-attention).
    attentions = ("self_attention",)

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
        for name in self.attentions:
            setattr(self, name, MultiHeadAttention(
                num_heads, d_model // num_heads, dropout=dropout, dtype=policy, name=name))
            setattr(self, f"{name}_norm", keras.layers.LayerNormalization(
                epsilon=norm_epsilon, dtype=policy, name=f"{name}_norm"))
        self.ffn_inner = keras.layers.Dense(
            ff_dim, activation=activation, dtype=policy, name="ffn_inner"
        )
        self.ffn_outer = keras.layers.Dense(d_model, dtype=policy, name="ffn_outer")
        self.ffn_norm = keras.layers.LayerNormalization(
            epsilon=norm_epsilon, dtype=policy, name="ffn_norm"
        )
        self.dropout_layer = keras.layers.Dropout(dropout, dtype=policy, name="dropout")

    def build(self, inputs_shape):
        # A memory has the inputs' width, so the inputs' shape builds everything.
        inputs_shape = tuple(inputs_shape)
        for name in self.attentions:
            getattr(self, name).build(inputs_shape, inputs_shape)
            getattr(self, f"{name}_norm").build(inputs_shape)
        self.ffn_inner.build(inputs_shape)
        self.ffn_outer.build(inputs_shape[:-1] + (self.ff_dim,))
        self.ffn_norm.build(inputs_shape)
        self.built = True

    def call(self, inputs, mask=None, training=None):
        h = self._before(self.self_attention_norm, inputs)  # (batch, src_len, d_model)
        h = self.self_attention(h, h, attention_mask=key_mask(mask), training=training)
        x = self._after(self.self_attention_norm, inputs, h, training)
        return self._feed_forward(x, training)  # (batch, src_len, d_model)

    def _before(self, norm, x):
        """A sub-layer's input: `norm(x)` with pre-norm, `x` with post-norm."""
        return norm(x) if self.pre_norm else x

    def _after(self, norm, x, h, training):
        """The residual sum `x + dropout(h)` of a sub-layer's output; then `norm` if post-norm."""
        x = x + self.dropout_layer(h, training=training)
        return x if self.pre_norm else norm(x)

    def _feed_forward(self, x, training):
        """The position-wise feed-forward sub-layer, with its residual sum and norm."""
        h = self.ffn_outer(self.ffn_inner(self._before(self.ffn_norm, x)))  # via (.., ff_dim)
        return self._after(self.ffn_norm, x, h, training)

    def compute_mask(self, inputs, mask=None):
        return mask

    def compute_output_shape(self, inputs_shape):
        return tuple(inputs_shape)


def key_mask(mask):
    """`(batch, len)` -> `(batch, 1, len)`: every query row sees the same keys (None: all)."""
    return None if mask is None else ops.cast(mask, "bool")[:, None, :]
