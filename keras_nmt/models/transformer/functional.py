"""The Transformer (`model.py`) in the Keras functional API.

`diff functional.py subclassed.py` is what the choice of API changes; the attention's heads and
softmax: `keras_nmt/layers/attention.py`, reached through the blocks.
"""

import keras
from keras import ops

from keras_nmt.models.functional_init import functional_init
from keras_nmt.models.layer_method import LayerMethod
from keras_nmt.models.transformer.model import Transformer


@keras.saving.register_keras_serializable(package="keras_nmt")
class TransformerFunctional(Transformer, keras.Model):
    """`Transformer` built with the functional API.

    The layers are wired once, on symbolic tensors, into a training model and two inference
    models that share its layers: `encoder_model` (source ids -> the memory, the cross-attention
    keys and values projected once) and `decoder_step_model` (one token + caches + memory ->
    logits, attention, caches).
    """

    def _block_method(self, block, method):
        return LayerMethod(block, method)  # a graph holds layer calls only

    def _wire(self, **kwargs):
        # ---- Training model ----
        encoder_tokens = keras.Input(shape=(None,), dtype="int32", name="encoder_tokens")
        decoder_tokens = keras.Input(shape=(None,), dtype="int32", name="decoder_tokens")
        encoder_output, source_mask = self._encoder(encoder_tokens)
        logits = self._decoder(decoder_tokens, encoder_output, source_mask)
        functional_init(
            self,
            inputs={"encoder_tokens": encoder_tokens, "decoder_tokens": decoder_tokens},
            outputs=logits,
            **kwargs,
        )

        # ---- Inference models (the same layer objects, so the same weights) ----
        memory = self._memory(encoder_output, source_mask)
        self.encoder_model = keras.Model(encoder_tokens, memory, name="encoder_model")

        head_dim = self.d_model // self.num_heads
        # One dict of inputs holds the step's state and memory (`_decoder_step` reads both).
        step_inputs = {
            "token": keras.Input(shape=(), dtype="int32", name="token"),
            "step": keras.Input(shape=(), dtype="int32", name="step"),
            "source_mask": keras.Input(shape=(None,), dtype="bool", name="source_mask"),
        }
        for i in range(self.num_layers):
            for key in (f"key_cache_{i}", f"value_cache_{i}", f"cross_key_{i}", f"cross_value_{i}"):
                step_inputs[key] = keras.Input(shape=(self.num_heads, None, head_dim), name=key)
        logits, state, attention = self._decoder_step(step_inputs["token"], step_inputs,
                                                      step_inputs)
        self.decoder_step_model = keras.Model(
            step_inputs, {**state, "logits": logits, "attention": attention},
            name="decoder_step_model")

    # ---- Inference contract ----
    def encode(self, encoder_tokens):
        """Runs the encoder once per sentence: `(batch, src_len)` int32 ids padded with 0 -> the
        memory dict (see the class docstring), every leaf batch-major."""
        encoder_tokens = ops.convert_to_tensor(encoder_tokens, dtype="int32")
        return self.encoder_model(encoder_tokens, training=False)

    def decode_step(self, token, state, memory):
        """Feeds one target token per row (at position `state["step"]`) and predicts the next:
        `(logits (batch, target_vocab_size) float32, new state, attention (batch, src_len))`."""
        token = ops.convert_to_tensor(token, dtype="int32")
        inputs = {"token": token, "step": state["step"], "source_mask": memory["source_mask"]}
        for i in range(self.num_layers):
            inputs[f"key_cache_{i}"] = state[f"key_cache_{i}"]
            inputs[f"value_cache_{i}"] = state[f"value_cache_{i}"]
            inputs[f"cross_key_{i}"] = memory[f"cross_key_{i}"]
            inputs[f"cross_value_{i}"] = memory[f"cross_value_{i}"]
        # The memory's tensors carry Keras masks (source positions); the step model takes the
        # source mask explicitly, so pass no masks rather than have Keras warn that it drops them.
        outputs = self.decoder_step_model(inputs, training=False, mask=dict.fromkeys(inputs))
        new_state = {key: outputs[key] for key in state}
        return outputs["logits"], new_state, outputs["attention"]
