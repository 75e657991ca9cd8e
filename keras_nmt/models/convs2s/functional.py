"""ConvS2S (`model.py`) in the Keras functional API.

`diff functional.py subclassed.py` is what the choice of API changes; the attention's equations:
`keras_nmt/layers/attention.py` (section 7), reached through the decoder blocks.
"""

import keras
from keras import ops

from keras_nmt.models.convs2s.model import ConvS2S, mean_attention
from keras_nmt.models.functional_init import functional_init
from keras_nmt.models.layer_method import LayerMethod
from keras_nmt.special_ids import PAD_ID


@keras.saving.register_keras_serializable(package="keras_nmt")
class ConvS2SFunctional(ConvS2S, keras.Model):
    """`ConvS2S` built with the functional API.

    The layers are wired once, on symbolic tensors, into a training model and three inference
    models that share its layers: `encoder_model` (source ids -> the memory), the
    `decoder_step_model` (one token + each layer's window + memory -> logits, attention,
    windows) and `attention_model` (every decoder layer's attention, teacher-forced). The
    padding masks are Keras masks: the source embedding (`mask_zero`) starts them and they reach
    the encoder's convolutions through the dropout and projection layers.
    """

    def _wire(self, **kwargs):
        # ---- Training model ----
        encoder_tokens = keras.Input(shape=(None,), dtype="int32", name="encoder_tokens")
        decoder_tokens = keras.Input(shape=(None,), dtype="int32", name="decoder_tokens")
        source_mask = ops.not_equal(encoder_tokens, PAD_ID)  # (batch, src_len)
        # e: (batch, src_len, embedding_dim), masked where the source is padding (mask_zero)
        e = self.source_dropout(self.source_embedding(encoder_tokens))
        x = self.encoder_input(e)  # (batch, src_len, channels), the mask carried along
        for block in self.encoder_blocks:
            x = block(x)  # the Keras mask zeroes padding before each convolution
        keys, values = self.keys_and_values(self.encoder_output(x), e, source_mask)
        memory = {"keys": keys, "values": values, "source_mask": source_mask}
        logits, attention = self._decoder(decoder_tokens, memory)
        inputs = {"encoder_tokens": encoder_tokens, "decoder_tokens": decoder_tokens}
        functional_init(self, inputs=inputs, outputs=logits, **kwargs)

        # ---- Inference models (the same layer objects, so the same weights) ----
        # Every decoder layer's attention, teacher-forced: (batch, num_layers, tgt_len, src_len)
        self.attention_model = keras.Model(inputs, attention, name="attention_model")
        self.encoder_model = keras.Model(encoder_tokens, memory, name="encoder_model")

        token = keras.Input(shape=(), dtype="int32", name="token")
        step = keras.Input(shape=(), dtype="int32", name="step")
        step_inputs = {
            "token": token,
            "step": step,
            "source_mask": keras.Input(shape=(None,), dtype="bool", name="source_mask"),
            "keys": keras.Input(shape=(None, self.embedding_dim), name="keys"),
            "values": keras.Input(shape=(None, self.embedding_dim), name="values"),
        }
        for i in range(self.num_layers):
            step_inputs[f"window_{i}"] = keras.Input(shape=(self.kernel_size - 1, self.channels),
                                                     name=f"window_{i}")
        step_outputs = {"step": step + 1}
        # g_t: (batch, 1, embedding_dim), the token at position `step`
        g = self.target_dropout(self.target_embedding(ops.expand_dims(token, 1),
                                                      start_index=step))
        y = self.decoder_input(g)  # (batch, 1, channels)
        weights = []
        for i, block in enumerate(self.decoder_blocks):
            # One position from the layer's window (`ConvDecoderBlock.step`).
            y, layer_weights, step_outputs[f"window_{i}"] = LayerMethod(block, "step")(
                y, step_inputs[f"window_{i}"], g, step_inputs["keys"], step_inputs["values"],
                step_inputs["source_mask"])
            weights.append(layer_weights)  # (batch, 1, src_len)
        step_outputs["logits"] = ops.squeeze(self.project(y), axis=1)  # (batch, target_vocab)
        step_outputs["attention"] = mean_attention(weights)  # (batch, src_len)
        self.decoder_step_model = keras.Model(step_inputs, step_outputs,
                                              name="decoder_step_model")

    # ---- Inference contract ----
    def encode(self, encoder_tokens):
        """Runs the encoder once per sentence: `(batch, src_len)` int32 ids padded with 0 ->
        the memory `{"keys", "values", "source_mask"}` (`model.py`)."""
        encoder_tokens = ops.convert_to_tensor(encoder_tokens, dtype="int32")
        return self.encoder_model(encoder_tokens, training=False)

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
