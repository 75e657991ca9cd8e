"""ConvS2S (Gehring et al. 2017), functional API twin.

The model, its equations, initialisation and inference state are described once, in
`keras_nmt/models/convs2s.py`; the layers come from `convs2s_parts.make_layers`. The twin of
`convs2s_subclassed.py`: same constructor, `get_config` and layer names, so `diff` shows only
what the API style changes. Here the layers are wired once, on symbolic tensors, into a
training model and three inference models that share its layers: `encoder_model`,
`decoder_step_model` and `attention_model` (every decoder layer's attention). The padding
masks are Keras masks: the source embedding (`mask_zero`) starts them and they reach the
encoder's convolutions through the dropout and projection layers.
"""

import keras
from keras import ops

from keras_nmt.models.constructor_config import ConstructorConfig
from keras_nmt.models.convs2s import check_arguments
from keras_nmt.models.convs2s_parts import (
    keys_and_values,
    make_layers,
    mean_attention,
    zero_windows,
)
from keras_nmt.models.layer_method import LayerMethod
from keras_nmt.special_ids import PAD_ID


@keras.saving.register_keras_serializable(package="keras_nmt")
class ConvS2SFunctional(ConstructorConfig, keras.Model):
    """Convolutional encoder-decoder with multi-step attention, built with the functional API.

    The model: `keras_nmt.models.convs2s` (embeddings with learned positions, gated
    convolutions with scaled residual sums, causal convolutions in the decoder, an attention in
    every decoder layer, weight normalization).

    Training call: `model({"encoder_tokens": (batch, src_len) int32, "decoder_tokens":
    (batch, tgt_len) int32}) -> logits (batch, tgt_len, target_vocab_size)` float32; padding id 0.

    Inference contract (`keras_nmt.decoding`): `encode(encoder_tokens)` -> memory
    `{"keys", "values", "source_mask"}`; `initial_state(memory, max_length)` -> `{"step",
    "window_{i}"}`; `decode_step(token, state, memory)` -> `(logits (batch, vocab) float32,
    state, attention (batch, src_len))`, the attention being the decoder layers' mean. Every
    layer's attention: `layer_attention(encoder_tokens, decoder_tokens)`.

    The defaults are the training defaults (`keras_nmt.models.configurations.OPTION_DEFAULTS`).

    Args:
        source_vocab_size: number of source token ids.
        target_vocab_size: number of target token ids.
        embedding_dim: width of the embeddings, the attention and the output layer.
        channels: width of every convolution layer.
        kernel_size: positions each convolution sees.
        num_layers: convolution layers in the encoder and in the decoder (each).
        dropout: dropout rate (embeddings, convolution inputs, before the output projection).
        max_length: the longest source, target or decoded sequence (rows of the position
            tables).
        **kwargs: base `Model` arguments (`name`, `trainable`).

    Example:
        >>> model = ConvS2SFunctional(20, 20, embedding_dim=16, channels=32, num_layers=2)
        >>> logits = model({"encoder_tokens": src, "decoder_tokens": tgt_in})  # (b, t, 20)
        >>> memory = model.encode(src)
        >>> state = model.initial_state(memory, max_length=10)
        >>> logits, state, attention = model.decode_step(start_tokens, state, memory)

    References:
        Gehring et al., 2017, "Convolutional Sequence to Sequence Learning",
        https://arxiv.org/abs/1705.03122
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
        **kwargs,
    ):
        check_arguments(kernel_size, num_layers)
        kwargs.setdefault("name", "convs2s")

        # ---- Layers ----
        layers = make_layers(source_vocab_size, target_vocab_size, embedding_dim, channels,
                             kernel_size, num_layers, dropout, max_length)

        def project(h):
            # (batch, tgt_len, channels) -> (batch, tgt_len, target_vocab_size) float32
            hidden = layers.output_dropout(layers.output_hidden(h))
            return ops.cast(layers.output_projection(hidden), "float32")

        # ---- Training model ----
        encoder_tokens = keras.Input(shape=(None,), dtype="int32", name="encoder_tokens")
        decoder_tokens = keras.Input(shape=(None,), dtype="int32", name="decoder_tokens")
        source_mask = ops.not_equal(encoder_tokens, PAD_ID)  # (batch, src_len)
        # e: (batch, src_len, embedding_dim), masked where the source is padding (mask_zero)
        e = layers.source_dropout(layers.source_embedding(encoder_tokens))
        x = layers.encoder_input(e)  # (batch, src_len, channels), the mask carried along
        for block in layers.encoder_blocks:
            x = block(x)  # the Keras mask zeroes padding before each convolution
        keys, values = keys_and_values(layers.encoder_output(x), e, source_mask, num_layers)

        g = layers.target_dropout(layers.target_embedding(decoder_tokens))  # (b, tgt_len, emb)
        y = layers.decoder_input(g)  # (batch, tgt_len, channels)
        weights = []
        for block in layers.decoder_blocks:
            y, layer_weights = block(y, g, keys, values, source_mask)  # (b, tgt_len, src_len)
            weights.append(layer_weights)
        logits = project(y)  # (batch, tgt_len, target_vocab_size)
        inputs = {"encoder_tokens": encoder_tokens, "decoder_tokens": decoder_tokens}
        super().__init__(inputs=inputs, outputs=logits, **kwargs)

        self.source_vocab_size = source_vocab_size
        self.target_vocab_size = target_vocab_size
        self.embedding_dim = embedding_dim
        self.channels = channels
        self.kernel_size = kernel_size
        self.num_layers = num_layers
        self.dropout = dropout
        self.max_length = max_length

        # ---- Inference models (the same layer objects, so the same weights) ----
        # Every decoder layer's attention, teacher-forced: (batch, num_layers, tgt_len, src_len)
        self.attention_model = keras.Model(
            inputs, ops.cast(ops.stack(weights, axis=1), "float32"), name="attention_model")
        memory = {"keys": keys, "values": values, "source_mask": source_mask}
        self.encoder_model = keras.Model(encoder_tokens, memory, name="encoder_model")

        token = keras.Input(shape=(), dtype="int32", name="token")
        step = keras.Input(shape=(), dtype="int32", name="step")
        step_inputs = {
            "token": token,
            "step": step,
            "source_mask": keras.Input(shape=(None,), dtype="bool", name="source_mask"),
            "keys": keras.Input(shape=(None, embedding_dim), name="keys"),
            "values": keras.Input(shape=(None, embedding_dim), name="values"),
        }
        for i in range(num_layers):
            step_inputs[f"window_{i}"] = keras.Input(shape=(kernel_size - 1, channels),
                                                     name=f"window_{i}")
        step_outputs = {"step": step + 1}
        # g_t: (batch, 1, embedding_dim), the token at position `step`
        g = layers.target_dropout(layers.target_embedding(ops.expand_dims(token, 1),
                                                          start_index=step))
        y = layers.decoder_input(g)  # (batch, 1, channels)
        weights = []
        for i, block in enumerate(layers.decoder_blocks):
            # One position from the layer's window (`ConvDecoderBlock.step`).
            y, layer_weights, step_outputs[f"window_{i}"] = LayerMethod(block, "step")(
                y, step_inputs[f"window_{i}"], g, step_inputs["keys"], step_inputs["values"],
                step_inputs["source_mask"])
            weights.append(layer_weights)  # (batch, 1, src_len)
        step_outputs["logits"] = ops.squeeze(project(y), axis=1)  # (batch, target_vocab_size)
        step_outputs["attention"] = mean_attention(weights)  # (batch, src_len)
        self.decoder_step_model = keras.Model(step_inputs, step_outputs,
                                              name="decoder_step_model")

    # ---- Inference contract ----
    def encode(self, encoder_tokens):
        """Runs the encoder once per sentence: `(batch, src_len)` int32 ids padded with 0 ->
        the memory `{"keys", "values", "source_mask"}` (`convs2s.py`)."""
        encoder_tokens = ops.convert_to_tensor(encoder_tokens, dtype="int32")
        return self.encoder_model(encoder_tokens, training=False)

    def initial_state(self, memory, max_length):
        """Position 0 and zero windows (the causal border) for every row.

        Args:
            memory: the dict returned by `encode`.
            max_length: the decoding steps to come (at most the model's `max_length`: the
                position table's rows); the windows do not grow with it.

        Returns:
            `{"step": (batch,) int32, "window_{i}": (batch, kernel_size - 1, channels)}`.
        """
        if isinstance(max_length, int) and max_length > self.max_length:
            raise ValueError(f"max_length={max_length} exceeds the model's {self.max_length}")
        batch = ops.shape(memory["source_mask"])[0]
        return {"step": ops.zeros((batch,), dtype="int32"),
                **zero_windows(batch, self.num_layers, self.kernel_size, self.channels,
                               self.compute_dtype)}

    def decode_step(self, token, state, memory):
        """Feeds one target token per row (at position `state["step"]`), predicts the next.

        Returns:
            `(logits (batch, target_vocab_size) float32, new state, attention (batch, src_len))`.
        """
        inputs = {"token": ops.convert_to_tensor(token, dtype="int32"), **state, **memory}
        # The memory's tensors may carry Keras masks (source positions); the step model takes
        # the source mask explicitly, so pass no masks rather than have Keras warn.
        outputs = self.decoder_step_model(inputs, training=False, mask=dict.fromkeys(inputs))
        new_state = {key: outputs[key] for key in state}
        return outputs["logits"], new_state, outputs["attention"]

    def layer_attention(self, encoder_tokens, decoder_tokens):
        """Every decoder layer's attention over the source, teacher-forced on `decoder_tokens`
        (`[START] + y`): float32 `(batch, num_layers, tgt_len, src_len)`."""
        inputs = {"encoder_tokens": ops.convert_to_tensor(encoder_tokens, dtype="int32"),
                  "decoder_tokens": ops.convert_to_tensor(decoder_tokens, dtype="int32")}
        return self.attention_model(inputs, training=False)
