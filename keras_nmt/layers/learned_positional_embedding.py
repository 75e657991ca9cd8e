"""Token embedding plus a learned embedding of each position (ConvS2S)."""

import keras
from keras import ops

from keras_nmt.layers.layer_config import ArgumentsConfig
from keras_nmt.special_ids import PAD_ID

# The paper's initialisation of both tables (Gehring et al. 2017, §3.4): N(0, 0.1).
EMBEDDING_STDDEV = 0.1


@keras.saving.register_keras_serializable(package="keras_nmt")
class LearnedPositionalEmbedding(ArgumentsConfig, keras.layers.Layer):
    """`e_j = w_j + p_j`: the embedding of token `x_j` plus the learned embedding of position `j`.

    Gehring et al. (2017), §3.1: a convolution does not know where in the sentence it is, so
    each input element is embedded as the sum of its word embedding `w_j` (a row of a
    `(vocab_size, embedding_dim)` table) and an absolute position embedding `p_j` (a row of a
    learned `(max_length, embedding_dim)` table), unlike the Transformer's fixed sinusoids. Both
    tables start as N(0, 0.1) (§3.4). With `mask_zero`, padding (id 0) embeds to exactly 0 and
    `compute_mask` gives `ids != 0`, so a padded position carries nothing into a convolution.

    Args:
        vocab_size: number of token ids.
        embedding_dim: embedding size.
        max_length: rows of the position table; positions must stay below it.
        mask_zero: id 0 is padding: its embedding is 0 and it is masked.
        **kwargs: base `Layer` arguments (`name`, `dtype`, ...).

    Call arguments:
        inputs: int ids `(batch, length)`.
        start_index: optional int position of the first id, a scalar or `(batch,)`: position
            `t` of the input is `start_index + t` (the step decoder passes its step).

    Returns:
        `(batch, length, embedding_dim)`.

    Example:
        >>> layer = LearnedPositionalEmbedding(vocab_size=20, embedding_dim=8, max_length=16)
        >>> e = layer(np.array([[5, 6, 0]]))                       # (1, 3, 8); e[0, 2] == 0
        >>> e_2 = layer(np.array([[7]]), start_index=np.array([2]))  # token 7 at position 2

    References:
        Gehring et al., 2017, "Convolutional Sequence to Sequence Learning",
        https://arxiv.org/abs/1705.03122
    """

    config_arguments = ("vocab_size", "embedding_dim", "max_length", "mask_zero")

    def __init__(self, vocab_size, embedding_dim, max_length, mask_zero=True, **kwargs):
        super().__init__(**kwargs)
        self.vocab_size = vocab_size
        self.embedding_dim = embedding_dim
        self.max_length = max_length
        self.mask_zero = mask_zero
        self.supports_masking = True

    def build(self, inputs_shape=None):
        initializer = keras.initializers.RandomNormal(stddev=EMBEDDING_STDDEV)
        self.token_embeddings = self.add_weight(
            shape=(self.vocab_size, self.embedding_dim), initializer=initializer,
            name="token_embeddings")
        self.position_embeddings = self.add_weight(
            shape=(self.max_length, self.embedding_dim), initializer=initializer,
            name="position_embeddings")
        self.built = True

    def call(self, inputs, start_index=None):
        ids = ops.cast(inputs, "int32")  # (batch, length)
        positions = ops.arange(ops.shape(ids)[1], dtype="int32")[None, :]  # (1, length)
        if start_index is not None:
            positions = positions + ops.reshape(ops.cast(start_index, "int32"), (-1, 1))
        words = ops.take(self.token_embeddings, ids, axis=0)  # w_j: (batch, length, dim)
        places = ops.take(self.position_embeddings, positions, axis=0)  # p_j: (1 or batch, ..)
        embedded = ops.cast(words + places, self.compute_dtype)
        if self.mask_zero:
            embedded = embedded * ops.cast(ops.not_equal(ids, PAD_ID), embedded.dtype)[..., None]
        return embedded

    def compute_mask(self, inputs, previous_mask=None):
        return ops.not_equal(inputs, PAD_ID) if self.mask_zero else None

    def compute_output_shape(self, inputs_shape):
        return tuple(inputs_shape) + (self.embedding_dim,)
