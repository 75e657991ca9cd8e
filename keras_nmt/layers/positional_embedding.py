"""Token embedding scaled by sqrt(d_model) plus the Transformer's sinusoidal position encoding."""

import math

import keras
import numpy as np
from keras import ops

from keras_nmt.layers.layer_config import ArgumentsConfig

# How the sines and cosines of the position table are laid out along the model dimension.
POSITION_LAYOUTS = ("interleaved", "halves")


def _sinusoid_table(max_length, d_model, layout="interleaved"):
    """The paper's position encodings as a float32 array of shape `(max_length, d_model)`.

    Computed once in float64 by NumPy: sin/cos of arguments up to `max_length` lose digits in
    float32, and a table also makes the step decoder's lookup at one position exact.

    `layout="interleaved"` (the paper): dimension 2i holds the sine, 2i+1 the cosine of frequency
    i. `layout="halves"` (Marian, tensor2tensor): the sines of every frequency in the first half,
    their cosines in the second.
    """
    positions = np.arange(max_length, dtype=np.float64)[:, None]  # (max_length, 1)
    dims = np.arange(d_model)[None, :]  # (1, d_model)
    # Dimensions 2i and 2i+1 share the frequency 1 / 10000^(2i / d_model).
    angles = positions / np.power(10000.0, (2 * (dims // 2)) / d_model)
    table = np.where(dims % 2 == 0, np.sin(angles), np.cos(angles))
    if layout == "halves":
        table = np.concatenate([table[:, 0::2], table[:, 1::2]], axis=1)
    return table.astype("float32")


@keras.saving.register_keras_serializable(package="keras_nmt")
class PositionalEmbedding(ArgumentsConfig, keras.layers.Layer):
    """Token embedding times sqrt(d_model) plus sinusoidal position encoding.

    `PE(pos, 2i) = sin(pos / 10000^(2i/d_model))`, `PE(pos, 2i+1) = cos(pos / 10000^(2i/d_model))`
    (Vaswani et al., 2017, section 3.5); the embeddings are multiplied by `sqrt(d_model)` before the
    encoding is added (section 3.4). The encoding is a fixed table, not a weight.

    The same layer also gives the tied output projection of section 3.4: called with
    `reverse=True` on hidden states `(batch, length, d_model)` it returns `h · E^T`, logits of shape
    `(batch, length, vocab_size)` (Press & Wolf, 2017).

    Args:
        vocab_size: number of token ids.
        d_model: embedding size.
        max_length: number of positions in the encoding table; positions must stay below it.
        mask_zero: when True, id 0 (padding) is masked: `compute_mask` returns `ids != 0`.
        position_layout: `"interleaved"` (sin and cos alternate, the paper) or `"halves"` (all
            sines, then all cosines: Marian's table, e.g. OPUS-MT models).
        scale: multiply the embeddings by sqrt(d_model) (section 3.4); False adds the positions
            to the embeddings as they are.
        **kwargs: base `Layer` arguments (`name`, `dtype`, ...).

    Call arguments:
        inputs: int token ids `(batch, length)`; with `reverse=True`, float hidden states
            `(batch, length, d_model)`.
        start_index: optional int position of the first token, a scalar or `(batch,)`; position
            `t` of the input is `start_index + t`. The single-step decoder passes its step here.
        reverse: when True, project hidden states onto the vocabulary with the embedding matrix.

    Returns:
        `(batch, length, d_model)` embeddings, or `(batch, length, vocab_size)` logits when
        `reverse=True`.

    Example:
        >>> layer = PositionalEmbedding(vocab_size=20, d_model=16, max_length=32)
        >>> x = layer(np.array([[5, 6, 0]]))  # (1, 3, 16), mask [[True, True, False]]
        >>> step = layer(np.array([[7]]), start_index=np.array([2]))  # position 2 only

    References:
        Vaswani et al., 2017, "Attention Is All You Need", https://arxiv.org/abs/1706.03762
    """

    config_arguments = ("vocab_size", "d_model", "max_length", "mask_zero", "position_layout",
                        "scale")

    def __init__(
        self,
        vocab_size,
        d_model,
        max_length=512,
        mask_zero=True,
        position_layout="interleaved",
        scale=True,
        **kwargs,
    ):
        super().__init__(**kwargs)
        if position_layout not in POSITION_LAYOUTS:
            raise ValueError(f"position_layout must be one of {POSITION_LAYOUTS}, "
                             f"got {position_layout!r}")
        self.vocab_size = vocab_size
        self.d_model = d_model
        self.max_length = max_length
        self.mask_zero = mask_zero
        self.position_layout = position_layout
        self.scale = scale
        self.supports_masking = True
        self.token_embedding = keras.layers.Embedding(
            vocab_size, d_model, mask_zero=False, dtype=self.dtype_policy, name="token_embedding"
        )
        # A NumPy array, not a tensor: a tensor made here could belong to whatever graph is
        # being traced when the layer is created (e.g. while a model is loaded).
        self._position_table = _sinusoid_table(max_length, d_model, position_layout)

    def build(self, inputs_shape):
        self.token_embedding.build((None, None))
        self.built = True

    @property
    def embeddings(self):
        """The `(vocab_size, d_model)` embedding matrix (shared by the tied output projection)."""
        return self.token_embedding.embeddings

    def call(self, inputs, start_index=None, reverse=False):
        if reverse:
            # (batch, length, d_model) · (d_model, vocab_size) -> (batch, length, vocab_size)
            kernel = ops.cast(ops.transpose(self.token_embedding.embeddings), inputs.dtype)
            return ops.matmul(inputs, kernel)
        if not keras.backend.is_int_dtype(inputs.dtype):
            inputs = ops.cast(inputs, "int32")
        length = ops.shape(inputs)[1]
        positions = ops.arange(length, dtype="int32")[None, :]  # (1, length)
        if start_index is not None:
            start_index = ops.reshape(ops.cast(start_index, "int32"), (-1, 1))  # (batch or 1, 1)
            positions = positions + start_index  # (batch, length)
        table = ops.convert_to_tensor(self._position_table, dtype=self.compute_dtype)
        encoding = ops.take(table, positions, axis=0)  # (batch or 1, length, d_model)
        embedded = self.token_embedding(inputs)  # (batch, length, d_model)
        if self.scale:
            embedded = embedded * ops.cast(math.sqrt(self.d_model), embedded.dtype)
        return embedded + encoding

    def compute_mask(self, inputs, previous_mask=None):
        if len(inputs.shape) == 3:
            # reverse=True (hidden states to logits): the positions stay those of the input.
            return previous_mask
        if not self.mask_zero:
            return None
        return ops.not_equal(inputs, 0)  # (batch, length)

    def compute_output_shape(self, inputs_shape):
        if len(inputs_shape) == 3:
            return tuple(inputs_shape[:2]) + (self.vocab_size,)
        return tuple(inputs_shape) + (self.d_model,)
