"""The Transformer (`model.py`) as a subclassed Keras model.

`diff functional.py subclassed.py` is what the choice of API changes; the attention's heads and
softmax: `keras_nmt/layers/attention.py`, reached through the blocks.
"""

import keras
from keras import ops

from keras_nmt.models.transformer.model import Transformer


@keras.saving.register_keras_serializable(package="keras_nmt")
class TransformerSubclassed(Transformer, keras.Model):
    """`Transformer` written as a `keras.Model` subclass.

    The layers are attributes and the wiring runs in `call`, `encode` and `decode_step` each time
    they are called; `build` makes every weight before any call.
    """

    def _block_method(self, block, method):
        return getattr(block, method)

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
        encoder_output, source_mask = self._encoder(encoder_tokens, training=training)
        return self._decoder(decoder_tokens, encoder_output, source_mask, training=training)

    # ---- Inference contract ----
    def encode(self, encoder_tokens):
        """Runs the encoder once per sentence: `(batch, src_len)` int32 ids padded with 0 -> the
        memory dict (see the class docstring), every leaf batch-major."""
        encoder_tokens = ops.convert_to_tensor(encoder_tokens, dtype="int32")
        return self._memory(*self._encoder(encoder_tokens, training=False))

    def decode_step(self, token, state, memory):
        """Feeds one target token per row (at position `state["step"]`) and predicts the next:
        `(logits (batch, target_vocab_size) float32, new state, attention (batch, src_len))`."""
        token = ops.convert_to_tensor(token, dtype="int32")
        logits, new_state, attention = self._decoder_step(token, state, memory)
        return logits, {key: new_state[key] for key in state}, attention
