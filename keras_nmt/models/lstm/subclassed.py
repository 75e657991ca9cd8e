"""The LSTM encoder-decoder (`model.py`) as a subclassed Keras model with a step loop.

`diff functional.py subclassed.py` is what the choice of API changes.
"""

import keras
from keras import ops

from keras_nmt.models.lstm.model import LstmSeq2Seq
from keras_nmt.models.recurrent_parts import ScheduledSamplingModel, step_dropout_masks
from keras_nmt.special_ids import PAD_ID


@keras.saving.register_keras_serializable(package="keras_nmt")
class LstmSeq2SeqSubclassed(LstmSeq2Seq, ScheduledSamplingModel):
    """`LstmSeq2Seq` whose decoder steps through `LSTMCell`s one token at a time.

    The wiring runs in `call`, `encode` and `decode_step` each time they are called. The step
    loop (a `keras.ops.scan` over target positions) adds scheduled sampling
    (`ScheduledSamplingModel`).
    """

    def _decoder_lstm(self, units, name):
        return keras.layers.LSTMCell(units, name=name)

    # --- decoder ---
    def _embed(self, token):
        """Token ids `(batch,)` -> embedded `(batch, emb)`."""
        # A copy drops the Keras mask: a cell sees one token, there is nothing to mask.
        return ops.copy(self.target_embedding(token))

    def _cells(self, x, states, masks=None):
        """The decoder LSTM layers on one step's input `x` `(batch, features)` and states
        `[h_0, c_0, ...]` -> the top output `h_t` `(batch, units)` and the new states.

        `masks` (training only): `(num_layers - 1, batch, units)` dropout masks of this step.
        """
        new_states = []
        for depth, cell in enumerate(self.decoder_lstms):
            if depth and masks is not None:
                x = x * masks[depth - 1]  # decoder_dropout, its masks drawn before the loop
            x, (h, c) = cell(x, states[2 * depth : 2 * depth + 2])
            new_states.extend([h, c])
        return x, new_states

    def _step(self, token, states, masks=None):
        """Token `(batch,)` and `[h_0, c_0, ...]` -> top output `(batch, units)` and new states."""
        return self._cells(self._embed(token), states, masks)

    # --- training graph ---
    def call(self, inputs, training=None):
        encoder_tokens, decoder_tokens = inputs["encoder_tokens"], inputs["decoder_tokens"]
        states = self.encode(encoder_tokens, training=training)["encoder_states"]
        masks = step_dropout_masks(
            self.decoder_dropout, decoder_tokens, self.num_layers - 1, self.units, training
        )
        outputs = self._step_loop(self._step, self.output_projection, decoder_tokens, states,
                                  training, masks)  # (batch, tgt, units)
        return self._logits(outputs, training=training)  # (batch, tgt, vocab)

    # --- inference contract (see CONTRIBUTING.md) ---
    def encode(self, encoder_tokens, training=None):
        """Encodes `(batch, source_len)` ids into the memory dict the decoder starts from."""
        source_mask = ops.not_equal(encoder_tokens, PAD_ID)
        states = self._encoder(encoder_tokens, source_mask, training)[1]
        return {"source_mask": source_mask, "encoder_states": states}

    def decode_step(self, token, state, memory):
        """One step: token `(batch,)` -> logits `(batch, vocab)` float32, new state, None."""
        del memory  # no attention
        output, states = self._step(token, state["states"])
        return self._logits(output), {"states": states}, None
