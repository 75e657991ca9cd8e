"""The attention of one ConvS2S decoder layer (one step of multi-step attention)."""

import math

import keras
from keras import ops

from keras_nmt.layers.luong_attention import _attend
from keras_nmt.layers.weight_norm_dense import WeightNormDense

SQRT_HALF = math.sqrt(0.5)


@keras.saving.register_keras_serializable(package="keras_nmt")
class ConvS2SAttention(keras.layers.Layer):
    """Attention of decoder layer `l` over the encoder (Gehring et al. 2017, §3.3).

    With `h_i` the layer's GLU output at target position `i` (width `c`), `g_i` the embedding
    of the target token fed at `i`, `z_j` the encoder output at source position `j` and `e_j`
    the source embedding (width `f`, the embedding size):

    - `d_i = (W_d h_i + b_d + g_i) · √½`: a decoder summary that knows both the state and the
      previous target word (`in_projection`, `c -> f`);
    - `a_ij = softmax_j(d_i · z_j)`: dot-product scores over the real source positions
      (`keys` = `z_j`);
    - `c_i = √m · Σ_j a_ij v_j` with `v_j = (z_j + e_j) · √½` (`values`): the encoder output
      gives the keys, encoder output plus embedding the values, so the attention can point at
      a specific word as well as at its context; the paper scales the sum of `m` vectors by
      `m · √(1/m) = √m` to undo the variance a uniform average would lose (§3.4), with `m` the
      sentence's own number of source tokens, not the padded length;
    - the output `(W_o c_i + b_o + h_i) · √½` (`out_projection`, `f -> c`, a residual sum).

    Every decoder layer has one: the second layer attends knowing what the first attended to
    (the "multi-step" attention). Both projections are weight-normalised (`WeightNormDense`).

    Args:
        embedding_dim: `f`, the width of `g_i`, `z_j` and `v_j`.
        **kwargs: base `Layer` arguments.

    Call arguments:
        inputs: `h`, `(batch, tgt_len, c)`.
        target_embedding: `g`, `(batch, tgt_len, f)`.
        keys: `z`, `(batch, src_len, f)`.
        values: `v = (z + e) · √½`, `(batch, src_len, f)`.
        memory_mask: bool `(batch, src_len)`, True on real source tokens.

    Returns:
        `(outputs (batch, tgt_len, c), weights (batch, tgt_len, src_len))`: weights sum to 1
        over the real source tokens and are exactly 0 on padding.

    Example:
        >>> attention = ConvS2SAttention(embedding_dim=8)
        >>> out, weights = attention(h, g, keys, values, memory_mask=src != 0)

    References:
        Gehring et al., 2017, "Convolutional Sequence to Sequence Learning",
        https://arxiv.org/abs/1705.03122
    """

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
        d = (self.in_projection(inputs) + target_embedding) * half  # (batch, tgt_len, f)
        scores = ops.einsum("btf,bsf->bts", d, keys)  # d_i · z_j, (batch, tgt_len, src_len)
        context, weights = _attend(scores, values, memory_mask, None, squeeze=False)
        # √m with m the real source tokens of each sentence: (batch, 1, 1)
        m = ops.sum(ops.cast(memory_mask, context.dtype), axis=1)[:, None, None]
        context = context * ops.sqrt(m)  # (batch, tgt_len, f)
        return (self.out_projection(context) + inputs) * half, weights

    def compute_mask(self, inputs, *args, **kwargs):
        return None

    def get_config(self):
        config = super().get_config()
        config["embedding_dim"] = self.embedding_dim
        return config
