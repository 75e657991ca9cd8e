"""The Luong global-attention encoder-decoder (`model.py`) in the Keras functional API.

`diff functional.py subclassed.py` is what the choice of API changes; the attention's scores and
softmax: `keras_nmt/layers/attention.py`, reached through `model.py`.
"""

import keras
from keras import ops

from keras_nmt.models.functional_init import functional_init
from keras_nmt.models.lstm.functional import LstmSeq2SeqFunctional
from keras_nmt.models.luong.model import LuongSeq2Seq
from keras_nmt.models.recurrent_parts import attention_memory, attention_step_inputs
from keras_nmt.special_ids import PAD_ID


@keras.saving.register_keras_serializable(package="keras_nmt")
class LuongSeq2SeqFunctional(LuongSeq2Seq, LstmSeq2SeqFunctional):
    """`LuongSeq2Seq` as a static functional graph with `mask_zero` masking.

    The layers are wired once, on symbolic inputs. The LSTM twin's decoder stack reads the whole
    target (teacher forcing); then all target positions attend at once. Input feeding would feed
    `h̃_{t-1}` into the next step, which needs a step loop: this twin rejects
    `input_feeding=True`. From the same layer objects (shared weights) it also builds the
    inference models: `encoder_model` (source ids -> encoder outputs, attention keys, states) and
    `decoder_step_model` (one token + memory + states -> logits, attention, h̃, new states).
    """

    def _wire(self, **kwargs):
        if self.input_feeding:
            raise ValueError(
                "input feeding (Luong et al. 2015, §3.3) feeds h̃_{t-1} into the next step and "
                "needs a step loop; use LuongSeq2SeqSubclassed (--api subclassed)"
            )
        # --- training graph ---
        encoder_tokens = keras.Input((None,), dtype="int32", name="encoder_tokens")
        decoder_tokens = keras.Input((None,), dtype="int32", name="decoder_tokens")
        encoder_outputs, encoder_states = self._encoder(encoder_tokens)
        # The keys are computed inside the attention call here (once for all target positions):
        # a `project_memory` node would add the inner Dense as a layer of this graph.
        logits, _, _, _ = self._decoder(
            decoder_tokens, encoder_states, encoder_outputs, ops.not_equal(encoder_tokens, PAD_ID)
        )
        functional_init(
            self,
            inputs={"encoder_tokens": encoder_tokens, "decoder_tokens": decoder_tokens},
            outputs=logits,
            **kwargs,
        )
        # --- inference models, built from the same layer objects ---
        source = keras.Input((None,), dtype="int32", name="encoder_tokens")
        source_outputs, source_states = self._encoder(source)
        self.encoder_model = keras.Model(
            source,
            [source_outputs, self.attention.project_memory(source_outputs), *source_states],
            name="encoder_model",
        )
        token = keras.Input((1,), dtype="int32", name="token")
        memory_outputs = keras.Input((None, self.units), name="encoder_outputs")
        memory_keys = keras.Input((None, self.units), name="keys")
        memory_mask = keras.Input((None,), dtype="bool", name="source_mask")
        step_states = self._state_inputs()
        step_logits, step_weights, step_attentional, step_new_states = self._decoder(
            token, step_states, memory_outputs, memory_mask, keys=memory_keys
        )
        self.decoder_step_model = keras.Model(
            [token, memory_outputs, memory_keys, memory_mask, *step_states],
            [step_logits, step_weights, step_attentional, *step_new_states],
            name="decoder_step_model",
        )

    # --- decoder ---
    def _decoder(self, tokens, states, encoder_outputs, source_mask, keys=None):
        """Target ids `(batch, tgt)`, initial states and the memory -> logits `(batch, tgt,
        vocab)`, attention weights `(batch, tgt, src)`, `h̃` `(batch, tgt, units)`, states."""
        x, new_states = self._lstms(tokens, states)
        # x = h_t: (batch, tgt, units); all target positions attend at once.
        attentional, weights = self._attentional(x, encoder_outputs, source_mask, keys)
        return self._logits(attentional), weights, attentional, new_states

    # --- inference contract (see CONTRIBUTING.md) ---
    def encode(self, encoder_tokens):
        """Encodes `(batch, source_len)` ids into the memory dict the decoder attends over."""
        encoder_outputs, keys, *states = self.encoder_model(encoder_tokens)
        return attention_memory(ops.not_equal(encoder_tokens, PAD_ID), encoder_outputs, keys,
                                states)

    def decode_step(self, token, state, memory):
        """One step: token `(batch,)` -> logits `(batch, vocab)` float32, state, attention."""
        logits, weights, attentional, *states = self.decoder_step_model(
            attention_step_inputs(token, state, memory))
        new_state = {"states": states, "attentional": attentional[:, 0]}
        return logits[:, 0], new_state, ops.cast(weights[:, 0], "float32")
