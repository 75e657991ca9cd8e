"""The bag-of-words model (`model.py`) in the Keras functional API."""

import keras
from keras import ops

from keras_nmt.models.bow.model import BagOfWords
from keras_nmt.models.functional_init import functional_init


@keras.saving.register_keras_serializable(package="keras_nmt")
class BagOfWordsFunctional(BagOfWords, keras.Model):
    """`BagOfWords` wired once into a training graph and two inference models."""

    def _wire(self, **kwargs):
        encoder_tokens = keras.Input((None,), dtype="int32", name="encoder_tokens")
        decoder_tokens = keras.Input((None,), dtype="int32", name="decoder_tokens")
        logits = self._logits(decoder_tokens, self._summary(encoder_tokens))
        functional_init(
            self, inputs={"encoder_tokens": encoder_tokens, "decoder_tokens": decoder_tokens},
            outputs=logits, **kwargs)
        self.encoder_model = keras.Model(encoder_tokens, self._summary(encoder_tokens))
        token = keras.Input((1,), dtype="int32", name="token")
        summary = keras.Input((self.bag_units,), name="summary")
        self.decoder_step_model = keras.Model([token, summary], self._logits(token, summary))

    def encode(self, encoder_tokens):
        return {"source_mask": ops.not_equal(encoder_tokens, 0),
                "summary": self.encoder_model(encoder_tokens)}

    def decode_step(self, token, state, memory):
        logits = self.decoder_step_model([ops.expand_dims(token, 1), memory["summary"]])
        return logits[:, 0], {"step": state["step"] + 1}, None
