"""The Transformer (`model.py`) in the Keras functional API.

`diff functional.py subclassed.py` is what the choice of API changes; the attention's heads and
softmax: `keras_nmt/layers/attention.py`, reached through the blocks.
"""

import keras
from keras import ops

from keras_nmt.models.functional_init import functional_init
from keras_nmt.models.layer_method import LayerMethod
from keras_nmt.models.transformer.model import Transformer
from keras_nmt.special_ids import PAD_ID


@keras.saving.register_keras_serializable(package="keras_nmt")
class TransformerFunctional(Transformer, keras.Model):
    """`Transformer` built with the functional API.

    The layers are wired once, on symbolic tensors, into a training model and two inference
    models that share its layers: `encoder_model` (source ids -> the memory, the cross-attention
    keys and values projected once) and `decoder_step_model` (one token + caches + memory ->
    logits, attention, caches).
    """

    def _wire(self, **kwargs):
        # ---- Training model ----
        encoder_tokens = keras.Input(shape=(None,), dtype="int32", name="encoder_tokens")
        decoder_tokens = keras.Input(shape=(None,), dtype="int32", name="decoder_tokens")
        source_mask = ops.not_equal(encoder_tokens, PAD_ID)  # (batch, src_len)
        x = self.source_dropout(self.source_embedding(encoder_tokens))  # (batch, src_len, d_model)
        for block in self.encoder_blocks:
            x = block(x, mask=source_mask)
        encoder_output = self.encoder_norm(x) if self.pre_norm else x  # (batch, src_len, d_model)

        target_mask = ops.not_equal(decoder_tokens, PAD_ID)  # (batch, tgt_len)
        y = self.target_dropout(self.target_embedding(decoder_tokens))  # (batch, tgt_len, d_model)
        for block in self.decoder_blocks:
            y = block(y, encoder_output, inputs_mask=target_mask, memory_mask=source_mask)
        if self.pre_norm:
            y = self.decoder_norm(y)
        logits = self.project(y)  # (batch, tgt_len, target_vocab_size)
        functional_init(
            self,
            inputs={"encoder_tokens": encoder_tokens, "decoder_tokens": decoder_tokens},
            outputs=logits,
            **kwargs,
        )

        # ---- Inference models (the same layer objects, so the same weights) ----
        memory = {"encoder_output": encoder_output, "source_mask": source_mask}
        for i, block in enumerate(self.decoder_blocks):
            # (batch, num_heads, src_len, head_dim) each
            memory[f"cross_key_{i}"], memory[f"cross_value_{i}"] = LayerMethod(
                block, "cross_attention_cache"
            )(encoder_output)
        self.encoder_model = keras.Model(encoder_tokens, memory, name="encoder_model")

        head_dim = self.d_model // self.num_heads
        token = keras.Input(shape=(), dtype="int32", name="token")
        step = keras.Input(shape=(), dtype="int32", name="step")
        step_inputs = {
            "token": token,
            "step": step,
            "source_mask": keras.Input(shape=(None,), dtype="bool", name="source_mask"),
        }
        for i in range(self.num_layers):
            for key in (f"key_cache_{i}", f"value_cache_{i}", f"cross_key_{i}", f"cross_value_{i}"):
                step_inputs[key] = keras.Input(shape=(self.num_heads, None, head_dim), name=key)
        step_outputs = {"step": step + 1}
        y = self.target_dropout(self.target_embedding(ops.expand_dims(token, 1), start_index=step))
        for i, block in enumerate(self.decoder_blocks):
            # y: (batch, 1, d_model); scores: (batch, num_heads, 1, src_len)
            y, scores, key_cache, value_cache = LayerMethod(block, "step")(
                y,
                step,
                step_inputs[f"key_cache_{i}"],
                step_inputs[f"value_cache_{i}"],
                step_inputs[f"cross_key_{i}"],
                step_inputs[f"cross_value_{i}"],
                memory_mask=step_inputs["source_mask"],
            )
            step_outputs[f"key_cache_{i}"] = key_cache
            step_outputs[f"value_cache_{i}"] = value_cache
        if self.pre_norm:
            y = self.decoder_norm(y)
        step_outputs["logits"] = ops.squeeze(self.project(y), axis=1)  # (batch, target_vocab)
        step_outputs["attention"] = ops.mean(scores[:, :, 0], axis=1)  # (batch, src_len)
        self.decoder_step_model = keras.Model(step_inputs, step_outputs, name="decoder_step_model")

    # ---- Inference contract ----
    def encode(self, encoder_tokens):
        """Runs the encoder once per sentence.

        Args:
            encoder_tokens: int32 `(batch, src_len)`, padded with 0.

        Returns:
            The memory dict (see the class docstring), every leaf batch-major.
        """
        encoder_tokens = ops.convert_to_tensor(encoder_tokens, dtype="int32")
        return self.encoder_model(encoder_tokens, training=False)

    def decode_step(self, token, state, memory):
        """Feeds one target token per row and predicts the next.

        Args:
            token: int32 `(batch,)`, the token at position `state["step"]`.
            state: the dict from `initial_state` or the previous `decode_step`.
            memory: the dict from `encode`.

        Returns:
            `(logits (batch, target_vocab_size) float32, new state, attention (batch, src_len))`.
        """
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

