"""The Luong global-attention encoder-decoder (`model.py`) as a subclassed Keras model with a
step loop.

`diff functional.py subclassed.py` is what the choice of API changes; the attention's scores and
softmax: `keras_nmt/layers/attention.py`, reached through `model.py`.
"""

import keras
from keras import ops

from keras_nmt.models.lstm.subclassed import LstmSeq2SeqSubclassed
from keras_nmt.models.luong.model import LuongSeq2Seq
from keras_nmt.models.recurrent_parts import attention_memory, step_dropout_masks
from keras_nmt.special_ids import PAD_ID


@keras.saving.register_keras_serializable(package="keras_nmt")
class LuongSeq2SeqSubclassed(LuongSeq2Seq, LstmSeq2SeqSubclassed):
    """`LuongSeq2Seq` stepping through the LSTM twin's `LSTMCell`s one token at a time, with
    input feeding.

    The wiring runs in `call`, `encode` and `decode_step` each time they are called. The step
    loop (a `keras.ops.scan` over target positions) adds scheduled sampling
    (`ScheduledSamplingModel`) and input feeding (`input_feeding=True`, whose `decoder_lstm_0`
    weights no longer fit the functional twin). With teacher forcing probability 1 and no input
    feeding it computes exactly what its functional twin does. Without input feeding nothing of
    the attention flows back into the recurrence, so the loop runs only the decoder cells
    (attending inside it only to predict a token to feed) and all target positions attend at once
    after it, in larger matmuls.
    """

    # --- decoder ---
    def _attend(self, h, memory):
        """`h_t` -> `h̃_t` and the weights, over the memory dict of `encode`."""
        return self._attentional(
            h, memory["encoder_outputs"], memory["source_mask"], memory["keys"]
        )

    def _attentive_step(self, token, state, memory, masks=None):
        """Token `(batch,)`, state and memory -> `h̃_t` `(batch, units)`, new state, weights.

        `state` is `{"states": [h_0, c_0, ...], "attentional": h̃_{t-1} (batch, units)}`; the
        weights are `(batch, source_len)`. `masks`: as in `_cells` (the LSTM twin's).
        """
        x = self._embed(token)  # (batch, emb)
        if self.input_feeding:
            x = ops.concatenate([x, state["attentional"]], axis=-1)  # (batch, emb + units)
        h, states = self._cells(x, state["states"], masks)  # (batch, units)
        attentional, weights = self._attend(h, memory)  # (batch, units), (batch, src)
        return attentional, {"states": states, "attentional": attentional}, weights

    # --- training graph ---
    def call(self, inputs, training=None):
        encoder_tokens, decoder_tokens = inputs["encoder_tokens"], inputs["decoder_tokens"]
        memory = self.encode(encoder_tokens, training=training)
        if self.input_feeding:
            # h̃_{t-1} feeds the next step: the attention runs inside the loop.
            def step(token, state, masks):
                attentional, state, _ = self._attentive_step(token, state, memory, masks)
                return attentional, state

            project, initial = self.output_projection, self.initial_state(memory)
        else:
            # Only a fed prediction needs h̃_t inside the loop; the loop emits h_t and all target
            # positions attend at once after it (the functional twin's shape, larger matmuls).
            def project(h):
                return self.output_projection(self._attend(h, memory)[0])

            step, initial = self._step, list(memory["encoder_states"])

        masks = step_dropout_masks(
            self.decoder_dropout, decoder_tokens, self.num_layers - 1, self.units, training
        )
        outputs = self._step_loop(step, project, decoder_tokens, initial, training, masks)
        # outputs: (batch, tgt, units), h̃_t with input feeding, else h_t
        if not self.input_feeding:
            outputs, _ = self._attend(outputs, memory)  # (batch, tgt, units)
        return self._logits(outputs, training=training)  # (batch, tgt, vocab)

    # --- inference contract (see CONTRIBUTING.md) ---
    def encode(self, encoder_tokens, training=None):
        """Encodes `(batch, source_len)` ids into the memory dict the decoder attends over."""
        source_mask = ops.not_equal(encoder_tokens, PAD_ID)  # (batch, src)
        x, states = self._encoder(encoder_tokens, source_mask, training)  # (batch, src, units)
        return attention_memory(source_mask, x, self.attention.project_memory(x), states)

    def decode_step(self, token, state, memory):
        """One step: token `(batch,)` -> logits `(batch, vocab)` float32, state, attention."""
        attentional, new_state, weights = self._attentive_step(token, state, memory)
        return self._logits(attentional), new_state, ops.cast(weights, "float32")
