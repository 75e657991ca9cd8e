"""The LSTM encoder-decoder (`model.py`) in the Keras functional API.

`diff functional.py subclassed.py` is what the choice of API changes.
"""

import keras
from keras import ops

from keras_nmt.models.functional_init import functional_init
from keras_nmt.models.lstm.model import LstmSeq2Seq
from keras_nmt.models.recurrent_parts import sequence_lstm
from keras_nmt.special_ids import PAD_ID


@keras.saving.register_keras_serializable(package="keras_nmt")
class LstmSeq2SeqFunctional(LstmSeq2Seq, keras.Model):
    """`LstmSeq2Seq` as a static functional graph with `mask_zero` masking.

    The layers are wired once, on symbolic inputs: the training graph, and from the same layer
    objects (shared weights) the separate inference models of the classic Keras character-level
    example, `encoder_model` (source ids -> states) and `decoder_step_model` (one token + states
    -> logits + new states). The decoder layers are `LSTM` layers reading the whole target.
    """

    def _decoder_lstm(self, units, name):
        return sequence_lstm(units, name=name)

    def _wire(self, **kwargs):
        # --- training graph ---
        encoder_tokens = keras.Input((None,), dtype="int32", name="encoder_tokens")
        decoder_tokens = keras.Input((None,), dtype="int32", name="decoder_tokens")
        logits, _ = self._decoder(decoder_tokens, self._encoder(encoder_tokens)[1])
        functional_init(
            self,
            inputs={"encoder_tokens": encoder_tokens, "decoder_tokens": decoder_tokens},
            outputs=logits,
            **kwargs,
        )
        # --- inference models, built from the same layer objects ---
        source = keras.Input((None,), dtype="int32", name="encoder_tokens")
        self.encoder_model = keras.Model(source, self._encoder(source)[1], name="encoder_model")
        token = keras.Input((1,), dtype="int32", name="token")
        step_states = self._state_inputs()
        step_logits, step_new_states = self._decoder(token, step_states)
        self.decoder_step_model = keras.Model(
            [token, *step_states], [step_logits, *step_new_states], name="decoder_step_model"
        )

    def _state_inputs(self):
        """The decoder step model's state inputs `[h_0, c_0, ...]`, each `(batch, units)`."""
        return [keras.Input((self.units,), name=f"state_{kind}_{depth}")
                for depth in range(self.num_layers) for kind in ("h", "c")]

    # --- decoder ---
    def _lstms(self, tokens, states):
        """Target ids `(batch, tgt)` and initial states -> the top outputs `h_t` `(batch, tgt,
        units)` and the final states."""
        x = self.target_embedding(tokens)  # (batch, tgt, emb)
        new_states = []
        for depth, lstm in enumerate(self.decoder_lstms):
            if depth:
                x = self.decoder_dropout(x)
            x, h, c = lstm(x, initial_state=states[2 * depth : 2 * depth + 2])
            new_states.extend([h, c])
        return x, new_states

    def _decoder(self, tokens, states):
        """Target ids `(batch, tgt)` and initial states -> logits `(batch, tgt, vocab)`, states."""
        x, new_states = self._lstms(tokens, states)
        return self._logits(x), new_states

    # --- inference contract (see CONTRIBUTING.md) ---
    def encode(self, encoder_tokens):
        """Encodes `(batch, source_len)` ids into the memory dict the decoder starts from."""
        states = self.encoder_model(encoder_tokens)
        return {"source_mask": ops.not_equal(encoder_tokens, PAD_ID), "encoder_states": states}

    def decode_step(self, token, state, memory):
        """One step: token `(batch,)` -> logits `(batch, vocab)` float32, new state, None."""
        del memory  # no attention
        logits, *states = self.decoder_step_model([ops.expand_dims(token, 1), *state["states"]])
        return logits[:, 0], {"states": states}, None
