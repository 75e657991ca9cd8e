"""The bag-of-words model (`model.py`) as a subclassed Keras model."""

import keras
from keras import ops

from keras_nmt.models.bow.model import BagOfWords


@keras.saving.register_keras_serializable(package="keras_nmt")
class BagOfWordsSubclassed(BagOfWords, keras.Model):
    """`BagOfWords` wired in `call`, `encode` and `decode_step` each time they run."""

    def _wire(self, **kwargs):
        keras.Model.__init__(self, **kwargs)

    def build(self, input_shape=None):
        tokens = ops.ones((1, 1), dtype="int32")
        self._logits(tokens, self._summary(tokens))  # every weight, before any traced call
        super().build(input_shape)

    def call(self, inputs, training=None):
        return self._logits(inputs["decoder_tokens"], self._summary(inputs["encoder_tokens"]))

    def encode(self, encoder_tokens):
        return {"source_mask": ops.not_equal(encoder_tokens, 0),
                "summary": self._summary(encoder_tokens)}

    def decode_step(self, token, state, memory):
        logits = self._logits(ops.expand_dims(token, 1), memory["summary"])
        return logits[:, 0], {"step": state["step"] + 1}, None
