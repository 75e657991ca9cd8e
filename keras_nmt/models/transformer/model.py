"""The Transformer (Vaswani et al., 2017): what its two twins share."""

import keras
from keras import ops

from keras_nmt.layers.key_value_cache import zero_cache
from keras_nmt.layers.logits_bias import LogitsBias
from keras_nmt.layers.positional_embedding import PositionalEmbedding
from keras_nmt.layers.transformer_decoder_block import TransformerDecoderBlock
from keras_nmt.layers.transformer_encoder_block import TransformerEncoderBlock
from keras_nmt.models.constructor_config import ConstructorConfig
from keras_nmt.special_ids import PAD_ID


class Transformer(ConstructorConfig):
    """Encoder-decoder Transformer.

    Source ids are embedded (`PositionalEmbedding`: embedding times sqrt(d_model) plus sinusoidal
    positions, then dropout) and run through `num_layers` `TransformerEncoderBlock`s; target ids
    (`[START] + y`) through `num_layers` `TransformerDecoderBlock`s (causal self-attention,
    cross-attention over the encoder output), then a projection onto the target vocabulary. With
    `pre_norm=True` both stacks end with a LayerNorm (Xiong et al., 2020). The blocks attend with
    `MultiHeadAttention`: the heads, the scaled dot products and the softmax are in
    `keras_nmt/layers/attention.py`, the decoder's key/value cache in `key_value_cache.py`.

    The twins: `functional.py`, `subclassed.py` (what every model's twins share:
    `ConstructorConfig`).

    Inference (the contract of `keras_nmt.decoding`):

    - `encode(encoder_tokens)` -> memory: `"encoder_output"` `(batch, src_len, d_model)`,
      `"source_mask"` `(batch, src_len)` bool, and per decoder layer `i` the cross-attention keys
      and values `"cross_key_{i}"`, `"cross_value_{i}"` `(batch, num_heads, src_len, head_dim)`,
      projected once per sentence.
    - `initial_state(memory, max_length)` -> state: `"step"` `(batch,)` int32 (zeros) and per
      decoder layer zero self-attention caches `"key_cache_{i}"`, `"value_cache_{i}"`
      `(batch, num_heads, max_length, head_dim)`; under TensorFlow a tensor `max_length` starts
      them at 16 positions at most, and `decode_step` doubles them when it needs more
      (`zero_cache`, `grown_caches`).
    - `decode_step(token (batch,), state, memory)` -> `(logits (batch, target_vocab_size) float32,
      state, attention (batch, src_len))`: the token at position `state["step"]` is written into
      the caches and attends to positions `<= step`; `attention` is the last decoder layer's
      cross-attention averaged over heads.

    Args:
        source_vocab_size, target_vocab_size: the vocabularies' sizes (id 0 is padding).
        num_layers: encoder layers and decoder layers (each).
        d_model: model width.
        num_heads: attention heads; must divide `d_model`.
        ff_dim: inner size of the feed-forward networks.
        dropout: dropout rate (embeddings, attention weights, sub-layer outputs).
        pre_norm: LayerNorm before each sub-layer (Xiong et al., 2020) instead of after.
        shared_embeddings: one embedding matrix for source and target (needs equal vocab sizes).
        tied_output: logits = h · E^T with the target embedding E (section 3.4) instead of a
            separate `Dense` projection.
        max_length: the longest source, target or decoded sequence (size of the position table).
        activation: the feed-forward networks' activation, `"relu"` (the paper) or `"swish"`
            (Marian).
        norm_epsilon: the LayerNorms' epsilon (transformers' Marian models: 1e-5).
        position_layout: the sinusoid table's layout, `"interleaved"` (the paper) or `"halves"`
            (sines then cosines, Marian); see `PositionalEmbedding`.
        scale_embeddings: multiply the embeddings by sqrt(d_model) before adding positions.
        output_bias: add a learned bias to the logits of the tied projection (`"output_bias"`,
            Marian's `decoder_ff_logit_out_b`); the untied `Dense` projection has its own.
        name: the model's name.
        **kwargs: base `Model` arguments (`trainable`).

    The options after `max_length` exist for models imported from Marian (OPUS-MT, see
    `keras_nmt.workshop.pretrained`): swish, 1e-5, `"halves"`, scaled, one shared embedding, tied
    output with a bias, post-norm without final norm. Marian's decoder starts from the embedding of
    its pad token; the import copies that row to `START_ID`, so decoding needs no special case.

    Example:
        >>> model = TransformerFunctional(20, 20, num_layers=2, d_model=16, num_heads=2, ff_dim=32)
        >>> logits = model({"encoder_tokens": src, "decoder_tokens": tgt_in})  # (b, t, 20)
        >>> memory = model.encode(src)
        >>> state = model.initial_state(memory, max_length=10)
        >>> logits, state, attention = model.decode_step(start_tokens, state, memory)

    References:
        Vaswani et al., 2017, "Attention Is All You Need", https://arxiv.org/abs/1706.03762;
        Xiong et al., 2020, "On Layer Normalization in the Transformer Architecture",
        https://arxiv.org/abs/2002.04745
    """

    has_attention = True
    model_name = "transformer"

    def __init__(
        self,
        source_vocab_size,
        target_vocab_size,
        num_layers=1,
        d_model=128,
        num_heads=4,
        ff_dim=512,
        dropout=0.0,
        pre_norm=False,
        shared_embeddings=False,
        tied_output=False,
        max_length=100,
        activation="relu",
        norm_epsilon=1e-6,
        position_layout="interleaved",
        scale_embeddings=True,
        output_bias=False,
        name="transformer",
        **kwargs,
    ):
        if shared_embeddings and source_vocab_size != target_vocab_size:
            raise ValueError(
                "shared_embeddings=True needs equal vocabulary sizes, got "
                f"source_vocab_size={source_vocab_size}, target_vocab_size={target_vocab_size}"
            )
        if d_model % num_heads:
            raise ValueError(f"d_model={d_model} is not divisible by num_heads={num_heads}")
        if output_bias and not tied_output:
            raise ValueError("output_bias=True is for the tied output projection "
                             "(tied_output=True); the untied Dense projection has its own bias")
        self._store_arguments(locals())
        # ---- Layers ----
        def embedding(vocab_size, name):
            return PositionalEmbedding(vocab_size, d_model, max_length=max_length, name=name,
                                       position_layout=position_layout, scale=scale_embeddings)

        if shared_embeddings:
            self.source_embedding = self.target_embedding = embedding(source_vocab_size,
                                                                      "shared_embedding")
        else:
            self.source_embedding = embedding(source_vocab_size, "source_embedding")
            self.target_embedding = embedding(target_vocab_size, "target_embedding")
        self.source_dropout = keras.layers.Dropout(dropout, name="source_embedding_dropout")
        self.target_dropout = keras.layers.Dropout(dropout, name="target_embedding_dropout")
        block = {"d_model": d_model, "num_heads": num_heads, "ff_dim": ff_dim, "dropout": dropout,
                 "pre_norm": pre_norm, "activation": activation, "norm_epsilon": norm_epsilon}
        self.encoder_blocks = [TransformerEncoderBlock(**block, name=f"encoder_block_{i}")
                               for i in range(num_layers)]
        self.decoder_blocks = [TransformerDecoderBlock(**block, name=f"decoder_block_{i}")
                               for i in range(num_layers)]
        self.encoder_norm = self.decoder_norm = None
        if pre_norm:
            # Pre-norm leaves the residual stream unnormalised: normalise once at the top.
            self.encoder_norm = keras.layers.LayerNormalization(epsilon=norm_epsilon,
                                                                name="encoder_final_norm")
            self.decoder_norm = keras.layers.LayerNormalization(epsilon=norm_epsilon,
                                                                name="decoder_final_norm")
        self.logits_bias = None
        if output_bias:
            self.logits_bias = LogitsBias(target_vocab_size, dtype="float32", name="output_bias")
        self.output_projection = None
        if not tied_output:
            self.output_projection = keras.layers.Dense(target_vocab_size, name="output_projection")
        self._wire(name=name, **kwargs)  # each twin its own way: functional.py, subclassed.py

    # ---- What both twins wire alike: the functional twin once, on keras.Input tensors, the
    # subclassed twin at each call. A block's method (`step`, `cross_attention_cache`) is called
    # through `_block_method(block, name)`, each twin's own. ----
    def _encoder(self, encoder_tokens, training=None):
        """Source ids `(batch, src_len)` -> the encoder output `(batch, src_len, d_model)` and
        the source mask `(batch, src_len)` bool."""
        source_mask = ops.not_equal(encoder_tokens, PAD_ID)  # (batch, src_len)
        x = self.source_dropout(self.source_embedding(encoder_tokens), training=training)
        for block in self.encoder_blocks:
            x = block(x, mask=source_mask, training=training)
        encoder_output = self.encoder_norm(x) if self.pre_norm else x  # (batch, src_len, d_model)
        return encoder_output, source_mask

    def _decoder(self, decoder_tokens, encoder_output, source_mask, training=None):
        """Target ids `(batch, tgt_len)` (`[START] + y`) and the encoder's output -> logits
        `(batch, tgt_len, target_vocab_size)` float32, every position at once."""
        target_mask = ops.not_equal(decoder_tokens, PAD_ID)  # (batch, tgt_len)
        y = self.target_dropout(self.target_embedding(decoder_tokens), training=training)
        for block in self.decoder_blocks:
            y = block(y, encoder_output, inputs_mask=target_mask, memory_mask=source_mask,
                      training=training)  # (batch, tgt_len, d_model)
        if self.pre_norm:
            y = self.decoder_norm(y)
        return self.project(y)

    def _memory(self, encoder_output, source_mask):
        """The memory dict of `encode` (see the class docstring): the encoder's output, its mask
        and each decoder layer's cross-attention keys and values, projected once."""
        memory = {"encoder_output": encoder_output, "source_mask": source_mask}
        for i, block in enumerate(self.decoder_blocks):
            project_memory = self._block_method(block, "cross_attention_cache")
            # (batch, num_heads, src_len, head_dim) each
            memory[f"cross_key_{i}"], memory[f"cross_value_{i}"] = project_memory(encoder_output)
        return memory

    def _decoder_step(self, token, state, memory):
        """One target token per row at position `state["step"]` -> logits `(batch,
        target_vocab_size)` float32, the new state, attention `(batch, src_len)` (the last
        layer's cross-attention, the heads' mean)."""
        step = state["step"]  # (batch,)
        new_state = {"step": step + 1}
        y = self.target_dropout(self.target_embedding(ops.expand_dims(token, 1), start_index=step),
                                training=False)  # decoding: no dropout
        for i, block in enumerate(self.decoder_blocks):
            block_step = self._block_method(block, "step")
            # y: (batch, 1, d_model); scores: (batch, num_heads, 1, src_len)
            y, scores, new_state[f"key_cache_{i}"], new_state[f"value_cache_{i}"] = block_step(
                y, step, state[f"key_cache_{i}"], state[f"value_cache_{i}"],
                memory[f"cross_key_{i}"], memory[f"cross_value_{i}"],
                memory_mask=memory["source_mask"])
        if self.pre_norm:
            y = self.decoder_norm(y)
        logits = ops.squeeze(self.project(y), axis=1)  # (batch, target_vocab_size)
        return logits, new_state, ops.mean(scores[:, :, 0], axis=1)

    def project(self, h):
        """`(batch, tgt_len, d_model)` -> logits `(batch, tgt_len, target_vocab_size)` float32."""
        if self.output_projection is not None:
            logits = self.output_projection(h)
        else:
            logits = self.target_embedding(h, reverse=True)
        # The matmul runs in the policy's compute dtype; logits and softmax in float32, as in
        # the recurrent models.
        logits = ops.cast(logits, "float32")
        return self.logits_bias(logits) if self.output_bias else logits

    # ---- Inference contract ----
    def initial_state(self, memory, max_length):
        """Zero self-attention caches for `max_length` decoding steps (a python int, at most the
        model's `max_length`, or an int32 scalar tensor, e.g. the batch's own limit, not checked
        here) and `"step"` 0 for every row of `memory`: the state of the class docstring."""
        if isinstance(max_length, int) and max_length > self.max_length:
            raise ValueError(f"max_length={max_length} exceeds the model's {self.max_length}")
        batch = ops.shape(memory["source_mask"])[0]
        head_dim = self.d_model // self.num_heads
        zeros = zero_cache(batch, self.num_heads, max_length, head_dim, self.compute_dtype)
        state = {"step": ops.zeros((batch,), dtype="int32")}
        for i in range(self.num_layers):
            state[f"key_cache_{i}"] = zeros
            state[f"value_cache_{i}"] = zeros
        return state
