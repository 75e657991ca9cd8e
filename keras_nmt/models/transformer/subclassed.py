"""The Transformer (`model.py`) as a subclassed Keras model.

`diff functional.py subclassed.py` is what the choice of API changes; the attention's heads and
softmax: `keras_nmt/layers/attention.py`, reached through the blocks.
"""

import keras
from keras import ops

from keras_nmt.models.transformer.model import Transformer
from keras_nmt.special_ids import PAD_ID


@keras.saving.register_keras_serializable(package="keras_nmt")
class TransformerSubclassed(Transformer, keras.Model):
    """`Transformer` written as a `keras.Model` subclass.

    The layers are attributes and the wiring runs in `call`, `encode` and `decode_step` each time
    they are called; `build` makes every weight before any call.
    """

    def _wire(self, **kwargs):
        keras.Model.__init__(self, **kwargs)

    def build(self, inputs_shape=None):
        # Every weight is created here, before any call, so a reloaded model gets its weights.
        hidden_shape = (None, None, self.d_model)
        self.source_embedding.build((None, None))
        self.target_embedding.build((None, None))
        for block in self.encoder_blocks + self.decoder_blocks:
            block.build(hidden_shape)
        if self.pre_norm:
            self.encoder_norm.build(hidden_shape)
            self.decoder_norm.build(hidden_shape)
        if self.output_projection is not None:
            self.output_projection.build(hidden_shape)
        if self.output_bias:
            self.logits_bias.build()
        self.built = True

    # ---- Training call ----
    def call(self, inputs, training=None):
        encoder_tokens = ops.cast(inputs["encoder_tokens"], "int32")
        decoder_tokens = ops.cast(inputs["decoder_tokens"], "int32")
        encoder_output, source_mask = self._encode(encoder_tokens, training=training)

        target_mask = ops.not_equal(decoder_tokens, PAD_ID)  # (batch, tgt_len)
        y = self.target_dropout(self.target_embedding(decoder_tokens), training=training)
        for block in self.decoder_blocks:
            y = block(
                y,
                encoder_output,
                inputs_mask=target_mask,
                memory_mask=source_mask,
                training=training,
            )
        if self.pre_norm:
            y = self.decoder_norm(y)
        return self.project(y)  # (batch, tgt_len, target_vocab_size)

    def _encode(self, encoder_tokens, training=None):
        source_mask = ops.not_equal(encoder_tokens, PAD_ID)  # (batch, src_len)
        x = self.source_dropout(self.source_embedding(encoder_tokens), training=training)
        for block in self.encoder_blocks:
            x = block(x, mask=source_mask, training=training)
        encoder_output = self.encoder_norm(x) if self.pre_norm else x  # (batch, src_len, d_model)
        return encoder_output, source_mask

    # ---- Inference contract ----
    def encode(self, encoder_tokens):
        """Runs the encoder once per sentence.

        Args:
            encoder_tokens: int32 `(batch, src_len)`, padded with 0.

        Returns:
            The memory dict (see the class docstring), every leaf batch-major.
        """
        encoder_tokens = ops.convert_to_tensor(encoder_tokens, dtype="int32")
        encoder_output, source_mask = self._encode(encoder_tokens, training=False)
        memory = {"encoder_output": encoder_output, "source_mask": source_mask}
        for i, block in enumerate(self.decoder_blocks):
            # (batch, num_heads, src_len, head_dim) each
            memory[f"cross_key_{i}"], memory[f"cross_value_{i}"] = block.cross_attention_cache(
                encoder_output
            )
        return memory

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
        step = state["step"]  # (batch,)
        new_state = {"step": step + 1}
        y = self.target_dropout(
            self.target_embedding(ops.expand_dims(token, 1), start_index=step), training=False
        )
        for i, block in enumerate(self.decoder_blocks):
            # y: (batch, 1, d_model); scores: (batch, num_heads, 1, src_len)
            y, scores, new_state[f"key_cache_{i}"], new_state[f"value_cache_{i}"] = block.step(
                y,
                step,
                state[f"key_cache_{i}"],
                state[f"value_cache_{i}"],
                memory[f"cross_key_{i}"],
                memory[f"cross_value_{i}"],
                memory_mask=memory["source_mask"],
            )
        if self.pre_norm:
            y = self.decoder_norm(y)
        logits = ops.squeeze(self.project(y), axis=1)  # (batch, target_vocab_size)
        attention = ops.mean(scores[:, :, 0], axis=1)  # (batch, src_len), the heads' mean
        return logits, {key: new_state[key] for key in state}, attention
