"""ConvS2S, the convolutional sequence-to-sequence model (Gehring et al. 2017): what its two
twins share."""

import math

import keras
from keras import ops

from keras_nmt.layers.conv_decoder_block import ConvDecoderBlock
from keras_nmt.layers.conv_encoder_block import ConvEncoderBlock
from keras_nmt.layers.learned_positional_embedding import LearnedPositionalEmbedding
from keras_nmt.layers.weight_norm_dense import WeightNormDense
from keras_nmt.models.constructor_config import ConstructorConfig


class ConvS2S(ConstructorConfig):
    """Convolutional encoder-decoder with multi-step attention (Gehring et al. 2017).

    Between the recurrent models and the Transformer: no recurrence, so every position of a
    sentence is computed at once in training, but still a fixed-size window per layer, widened
    by stacking; attention gives the alignment; positions must be embedded.

    - Embeddings (§3.1): `e_j = w_j + p_j`, a word embedding plus a learned position embedding
      (`LearnedPositionalEmbedding`, `embedding_dim` wide), then dropout; the target side's
      `g_i` likewise.
    - Encoder (§3.2): a projection to `channels` (`encoder_input`), then `num_layers` blocks
      `z^l = (GLU(conv(dropout(z^{l-1}))) + z^{l-1}) · √½` (`ConvEncoderBlock`: a convolution
      of `kernel_size` positions centred on each one, a gated linear unit, a residual
      connection), and a projection back to `embedding_dim` (`encoder_output`): `z_j`.
    - Decoder: `g_i` projected to `channels` (`decoder_input`), then `num_layers` blocks
      (`ConvDecoderBlock`) of causal convolutions (`kernel_size - 1` zeros on the left:
      position `i` never sees a later target token), each followed by its own attention
      (§3.3, multi-step attention; `ConvS2SAttention` in `keras_nmt/layers/attention.py`):
      `d_i = (W_d h_i + b_d + g_i) · √½`, `a_ij = softmax_j(d_i · z_j)`,
      `c_i = √m · Σ_j a_ij (z_j + e_j) · √½` (`m` real source tokens: the paper's
      `m · √(1/m)`), added back to `h_i` with a residual sum scaled by √½.
    - Output: a projection to `embedding_dim` (`output_hidden`), dropout, and the projection
      onto the target vocabulary (`output_projection`); logits in float32.
    - The scalings of §3.4: every residual sum times √½; the encoder output's gradient divided
      by twice the number of attentive decoder layers (it feeds each of them), the forward
      pass unchanged (`keys_and_values`); the source embeddings excluded.

    **Initialisation and weight normalization** (§3.4, as fairseq's `fconv`): every projection
    (`WeightNormDense`) and convolution (`GatedConvolution`) computes `w = g · v / ‖v‖` per
    output unit at each call (Salimans and Kingma 2016), from the paper's start, which keeps the
    variance of activations (their docstrings); the embeddings start as N(0, 0.1).

    **Not here**: fairseq's per-layer widths and kernel sizes (every layer here has `channels`
    and `kernel_size`), its adaptive softmax and its Nesterov SGD at learning rate 0.25 (we
    train with Adam, as the other models: the card's recipe). CTranslate2 runs no ConvS2S, so
    the model exports to a SavedModel only.

    The twins: `functional.py`, `subclassed.py` (what every model's twins share:
    `ConstructorConfig`).

    Args:
        source_vocab_size, target_vocab_size: the vocabularies' sizes (id 0 is padding).
        embedding_dim: width of the embeddings, the attention and the output layer.
        channels: width of every convolution layer.
        kernel_size: positions each convolution sees (at least 2).
        num_layers: convolution layers in the encoder and in the decoder (each).
        dropout: dropout rate (embeddings, convolution inputs, before the output projection).
        max_length: the longest source, target or decoded sequence (rows of the position
            tables).

    Inference (the contract of `keras_nmt.decoding`): `encode(encoder_tokens)` -> memory
    `{"keys": z_j, "values": (z_j + e_j) · √½, both (batch, src_len, embedding_dim),
    "source_mask"}`; `initial_state(memory, max_length)` -> `{"step": (batch,) int32,
    "window_{i}": (batch, kernel_size - 1, channels)}`, each decoder layer's last
    `kernel_size - 1` inputs (zeros at first: the causal border), so a step costs one column
    per layer, not the prefix; `decode_step(token, state, memory)` -> `(logits (batch, vocab)
    float32, state, attention (batch, src_len))`, the attention being the mean of the decoder
    layers' (what fairseq returns too). Every layer's own, teacher-forced:
    `layer_attention(encoder_tokens, decoder_tokens)` -> `(batch, num_layers, tgt_len,
    src_len)` float32, which the explorer page and `keras-nmt translate --attention-plot` draw.

    Example:
        >>> model = ConvS2SFunctional(20, 20, embedding_dim=16, channels=32, num_layers=2)
        >>> logits = model({"encoder_tokens": src, "decoder_tokens": tgt_in})  # (b, t, 20)
        >>> memory = model.encode(src)
        >>> state = model.initial_state(memory, max_length=10)
        >>> logits, state, attention = model.decode_step(start_tokens, state, memory)

    References:
        Gehring, Auli, Grangier, Yarats and Dauphin, 2017, "Convolutional Sequence to Sequence
        Learning", https://arxiv.org/abs/1705.03122; Dauphin et al., 2017, "Language Modeling
        with Gated Convolutional Networks", https://arxiv.org/abs/1612.08083; Salimans and
        Kingma, 2016, "Weight Normalization", https://arxiv.org/abs/1602.07868
    """

    has_attention = True
    model_name = "convs2s"

    def __init__(
        self,
        source_vocab_size,
        target_vocab_size,
        embedding_dim=128,
        channels=256,
        kernel_size=3,
        num_layers=1,
        dropout=0.0,
        max_length=100,
        name="convs2s",
        **kwargs,
    ):
        if kernel_size < 2:
            raise ValueError(f"kernel_size={kernel_size}: a ConvS2S convolution needs at least 2 "
                             "positions (the decoder's window keeps kernel_size - 1 of them)")
        if num_layers < 1:
            raise ValueError(f"num_layers={num_layers}: a ConvS2S needs at least one layer per "
                             "side")
        self._store_arguments(locals())
        # --- layers (the same names in both twins); each projection knows the dropout on its
        # input, for its initialisation ---
        self.source_embedding = LearnedPositionalEmbedding(
            source_vocab_size, embedding_dim, max_length, name="source_embedding")
        self.source_dropout = keras.layers.Dropout(dropout, name="source_embedding_dropout")
        self.encoder_input = WeightNormDense(channels, input_dropout=dropout,
                                             name="encoder_input")
        self.encoder_blocks = [ConvEncoderBlock(channels, kernel_size, dropout,
                                                name=f"encoder_block_{i}")
                               for i in range(num_layers)]
        self.encoder_output = WeightNormDense(embedding_dim, name="encoder_output")
        self.target_embedding = LearnedPositionalEmbedding(
            target_vocab_size, embedding_dim, max_length, name="target_embedding")
        self.target_dropout = keras.layers.Dropout(dropout, name="target_embedding_dropout")
        self.decoder_input = WeightNormDense(channels, input_dropout=dropout,
                                             name="decoder_input")
        self.decoder_blocks = [ConvDecoderBlock(channels, kernel_size, embedding_dim, dropout,
                                                name=f"decoder_block_{i}")
                               for i in range(num_layers)]
        self.output_hidden = WeightNormDense(embedding_dim, name="output_hidden")
        self.output_dropout = keras.layers.Dropout(dropout, name="output_dropout")
        self.output_projection = WeightNormDense(target_vocab_size, input_dropout=dropout,
                                                 name="output_projection")
        self._wire(name=name, **kwargs)  # each twin its own way: functional.py, subclassed.py

    def keys_and_values(self, encoder_output, source_embedding, source_mask):
        """The encoder's memory for the attention: keys `z_j` and values `(z_j + e_j) · √½`,
        each `(batch, src_len, embedding_dim)`, from the `encoder_output` layer's output, the
        source embedding `e` (after dropout) and the source mask.

        `z` is 0 at padding, and its gradient is divided by `2 · num_layers`: each of the
        `num_layers` decoder layers attends to it (§3.4; fairseq scales by `1 / (2 · attention
        layers)`). The embeddings `e` keep their gradient.
        """
        z = encoder_output * ops.cast(source_mask, encoder_output.dtype)[..., None]
        z = scale_gradient(z, 1.0 / (2.0 * self.num_layers))
        # `/ √2`, that is `· √½`: in a functional graph Keras marks a product with a constant as
        # a sparse tensor (JAX then warns at the attention's matmul); a quotient stays dense.
        return z, (z + source_embedding) / math.sqrt(2.0)

    def _decoder(self, decoder_tokens, memory, training=None):
        """Every target position at once (`[START] + y`, teacher-forced), over the memory of
        `encode` -> logits `(batch, tgt_len, target_vocab_size)` float32 and every layer's
        attention `(batch, num_layers, tgt_len, src_len)` float32."""
        g = self.target_dropout(self.target_embedding(decoder_tokens), training=training)
        y = self.decoder_input(g)  # (batch, tgt_len, channels)
        weights = []
        for block in self.decoder_blocks:
            y, layer_weights = block(y, g, memory["keys"], memory["values"],
                                     memory["source_mask"], training=training)
            weights.append(layer_weights)  # (batch, tgt_len, src_len)
        return self.project(y), ops.cast(ops.stack(weights, axis=1), "float32")

    def project(self, h):
        """`(batch, ..., channels)` -> logits `(batch, ..., target_vocab_size)` float32."""
        hidden = self.output_dropout(self.output_hidden(h))
        return ops.cast(self.output_projection(hidden), "float32")

    # --- inference contract (see CONTRIBUTING.md) ---
    def initial_state(self, memory, max_length):
        """`{"step": 0, "window_{i}": zeros}` for every row of `memory` (the class docstring):
        the causal border. `max_length`, the steps to come, is at most the model's (the position
        table's rows); the windows do not grow with it."""
        if isinstance(max_length, int) and max_length > self.max_length:
            raise ValueError(f"max_length={max_length} exceeds the model's {self.max_length}")
        batch = ops.shape(memory["source_mask"])[0]
        window = ops.zeros((batch, self.kernel_size - 1, self.channels), dtype=self.compute_dtype)
        return {"step": ops.zeros((batch,), dtype="int32"),
                **{f"window_{i}": window for i in range(self.num_layers)}}


def scale_gradient(x, factor):
    """`x` in the forward pass, `factor` times its gradient in the backward pass."""
    frozen = ops.stop_gradient(x)
    return frozen + factor * (x - frozen)


def mean_attention(weights):
    """The attention `decode_step` returns: the mean over the decoder layers of their weights
    at this step, a list of `(batch, 1, src_len)` -> `(batch, src_len)` float32 (a
    distribution, 0 on padding, as each layer's)."""
    return ops.cast(ops.mean(ops.stack([w[:, 0] for w in weights], axis=1), axis=1), "float32")
