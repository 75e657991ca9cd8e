"""The Bahdanau attention encoder-decoder (`model.py`) as a subclassed Keras model with a step
loop.

`diff functional.py subclassed.py` is what the choice of API changes; the attention's score and
softmax: `keras_nmt/layers/attention.py`.
"""

import keras
from keras import ops

from keras_nmt.models.bahdanau.model import BahdanauSeq2Seq
from keras_nmt.models.recurrent_parts import (
    build_by_one_step,
    final_states,
    step_loop,
    teacher_forcing_coins,
)
from keras_nmt.special_ids import PAD_ID


@keras.saving.register_keras_serializable(package="keras_nmt")
class BahdanauSeq2SeqSubclassed(BahdanauSeq2Seq, keras.Model):
    """`BahdanauSeq2Seq` stepping through its decoder cell one token at a time.

    The wiring runs in `call`, `encode` and `decode_step` each time they are called. The step
    loop (a `keras.ops.scan` over target positions) adds scheduled random teacher forcing
    (Bengio et al. 2015, "Scheduled Sampling for Sequence Prediction with Recurrent Neural
    Networks"): during training, at each step the decoder is fed the ground-truth previous token
    with probability `teacher_forcing_probability` (a variable that
    `keras_nmt.training.teacher_forcing_schedule.TeacherForcingSchedule` moves during `fit`), else
    its own previous argmax prediction. With probability 1 it computes exactly what its functional
    twin does.
    """

    def _wire(self, **kwargs):
        keras.Model.__init__(self, **kwargs)
        self.teacher_forcing_probability = self.add_weight(
            shape=(), initializer="ones", trainable=False, name="teacher_forcing_probability"
        )
        self.seed_generator = keras.random.SeedGenerator()

    def build(self, input_shape=None):
        build_by_one_step(self, source_len=2)
        super().build(input_shape)

    # --- encoder ---
    def encode(self, encoder_tokens, training=None):
        """Encodes `(batch, source_len)` ids into the memory dict the decoder attends over."""
        source_mask = ops.not_equal(encoder_tokens, PAD_ID)  # (batch, src)
        x = self.source_embedding(encoder_tokens)  # (batch, src, emb)
        x, *layer_states = self.encoder(x, mask=source_mask, training=training)
        # x: (batch, src, 2 * units)
        h, c = final_states(layer_states, bidirectional=True)  # (batch, 2 * units) each
        # A copy drops the Keras mask: `source_mask` carries the padding explicitly.
        annotations = ops.copy(self.encoder_dropout(x, training=training))
        return {
            "source_mask": source_mask,
            "encoder_outputs": annotations,
            "keys": self.attention.project_memory(annotations),
            "encoder_states": [self.bridge_h(h), self.bridge_c(c)],  # (batch, units) each
        }

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
        feed_truth = teacher_forcing_coins(
            decoder_tokens, self.teacher_forcing_probability, self.seed_generator, training
        )
        batch = ops.shape(decoder_tokens)[0]

        def step(token, states, masks):
            del masks  # no dropout inside the loop
            hidden, states, _ = self._step(token, states, memory)
            return hidden, states

        outputs = step_loop(
            step,
            self.output_projection,
            decoder_tokens,
            feed_truth,
            list(memory["encoder_states"]),
            ops.zeros((batch, self.units), dtype=self.compute_dtype),
            sample=bool(training) and self.teacher_forcing_probability < 1.0,
        )  # (batch, tgt, units)
        logits = self.output_projection(self.decoder_dropout(outputs, training=training))
        # Logits in float32 even under a mixed-precision policy (a stable softmax).
        return ops.cast(logits, "float32")  # (batch, tgt, vocab)

    # --- inference contract (see CONTRIBUTING.md) ---
    def decode_step(self, token, state, memory):
        """One step: token `(batch,)` -> logits `(batch, vocab)` float32, state, attention."""
        hidden, states, weights = self._step(token, state["states"], memory)
        logits = self.output_projection(hidden)
        return ops.cast(logits, "float32"), {"states": states}, ops.cast(weights, "float32")
