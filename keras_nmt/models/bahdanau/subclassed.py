"""The Bahdanau attention encoder-decoder (`model.py`) as a subclassed Keras model with a step
loop.

`diff functional.py subclassed.py` is what the choice of API changes; the attention's score and
softmax: `keras_nmt/layers/attention.py`.
"""

import keras
from keras import ops

from keras_nmt.models.bahdanau.model import BahdanauSeq2Seq
from keras_nmt.models.recurrent_parts import ScheduledSamplingModel, attention_memory
from keras_nmt.special_ids import PAD_ID


@keras.saving.register_keras_serializable(package="keras_nmt")
class BahdanauSeq2SeqSubclassed(BahdanauSeq2Seq, ScheduledSamplingModel):
    """`BahdanauSeq2Seq` stepping through its decoder cell one token at a time.

    The wiring runs in `call`, `encode` and `decode_step` each time they are called. The step
    loop (a `keras.ops.scan` over target positions) adds scheduled sampling
    (`ScheduledSamplingModel`).
    """

    # --- decoder ---
    def _step(self, token, states, memory):
        """Token `(batch,)`, `[h, c]` and memory -> `t_t` `(batch, units)`, new states, weights.

        The weights are `(batch, source_len)`.
        """
        # A copy drops the Keras mask: a cell sees one token, there is nothing to mask.
        embedded = ops.copy(self.target_embedding(token))  # (batch, emb)
        # The query is the previous state s_{t-1}.
        context, weights = self.attention(
            states[0],
            memory["encoder_outputs"],
            memory_mask=memory["source_mask"],
            projected_memory=memory["keys"],
        )  # (batch, 2 * units), (batch, src)
        output, new_states = self.decoder_cell(
            ops.concatenate([embedded, context], axis=-1), states
        )  # (batch, units)
        hidden = self._readout(output, context, embedded)  # (batch, units)
        return hidden, list(new_states), weights

    # --- training graph ---
    def call(self, inputs, training=None):
        encoder_tokens, decoder_tokens = inputs["encoder_tokens"], inputs["decoder_tokens"]
        memory = self.encode(encoder_tokens, training=training)

        def step(token, states, masks):
            del masks  # no dropout inside the loop
            hidden, states, _ = self._step(token, states, memory)
            return hidden, states

        outputs = self._step_loop(
            step, self.output_projection, decoder_tokens, list(memory["encoder_states"]), training
        )  # (batch, tgt, units)
        return self._logits(outputs, training=training)  # (batch, tgt, vocab)

    # --- inference contract (see CONTRIBUTING.md) ---
    def encode(self, encoder_tokens, training=None):
        """Encodes `(batch, source_len)` ids into the memory dict the decoder attends over."""
        source_mask = ops.not_equal(encoder_tokens, PAD_ID)  # (batch, src)
        annotations, states = self._encoder(encoder_tokens, source_mask, training)
        # annotations: (batch, src, 2 * units); states: (batch, units) each
        return attention_memory(source_mask, annotations,
                                self.attention.project_memory(annotations), states)

    def decode_step(self, token, state, memory):
        """One step: token `(batch,)` -> logits `(batch, vocab)` float32, state, attention."""
        hidden, states, weights = self._step(token, state["states"], memory)
        return self._logits(hidden), {"states": states}, ops.cast(weights, "float32")
