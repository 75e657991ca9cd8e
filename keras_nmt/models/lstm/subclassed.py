"""The LSTM encoder-decoder (`model.py`) as a subclassed Keras model with a step loop.

`diff functional.py subclassed.py` is what the choice of API changes.
"""

import keras
from keras import ops

from keras_nmt.models.lstm.model import LstmSeq2Seq
from keras_nmt.models.recurrent_parts import (
    build_by_one_step,
    final_states,
    step_dropout_masks,
    step_loop,
    teacher_forcing_coins,
)
from keras_nmt.special_ids import PAD_ID


@keras.saving.register_keras_serializable(package="keras_nmt")
class LstmSeq2SeqSubclassed(LstmSeq2Seq, keras.Model):
    """`LstmSeq2Seq` whose decoder steps through `LSTMCell`s one token at a time.

    The wiring runs in `call`, `encode` and `decode_step` each time they are called. The step
    loop (a `keras.ops.scan` over target positions) adds scheduled random teacher forcing
    (Bengio et al. 2015, "Scheduled Sampling for Sequence Prediction with Recurrent Neural
    Networks"): during training, at each step the decoder is fed the ground-truth previous token
    with probability `teacher_forcing_probability` (a variable that
    `keras_nmt.training.teacher_forcing_schedule.TeacherForcingSchedule` moves during `fit`), else
    its own previous argmax prediction. With probability 1 it computes exactly what its functional
    twin does.
    """

    def _decoder_lstm(self, units, name):
        return keras.layers.LSTMCell(units, name=name)

    def _wire(self, **kwargs):
        keras.Model.__init__(self, **kwargs)
        self.teacher_forcing_probability = self.add_weight(
            shape=(), initializer="ones", trainable=False, name="teacher_forcing_probability"
        )
        self.seed_generator = keras.random.SeedGenerator()

    def build(self, input_shape=None):
        build_by_one_step(self, source_len=1)
        super().build(input_shape)

    # --- encoder ---
    def encode(self, encoder_tokens, training=None):
        """Encodes `(batch, source_len)` ids into the memory dict the decoder starts from."""
        source_mask = ops.not_equal(encoder_tokens, PAD_ID)
        tokens = self.reverse(encoder_tokens) if self.reverse else encoder_tokens
        x = self.source_embedding(tokens)  # (batch, src, emb)
        states = []
        for depth, lstm in enumerate(self.encoder_lstms):
            if depth:
                x = self.encoder_dropout(x, training=training)
            x, *layer_states = lstm(x, mask=source_mask, training=training)  # (batch, src, units)
            states.extend(final_states(layer_states, self.bidirectional))
        return {"source_mask": source_mask, "encoder_states": states}

    # --- decoder ---
    def _step(self, token, states, masks=None):
        """Token `(batch,)` and `[h_0, c_0, ...]` -> top output `(batch, units)` and new states.

        `masks` (training only): `(num_layers - 1, batch, units)` dropout masks of this step.
        """
        # A copy drops the Keras mask: a cell sees one token, there is nothing to mask.
        x = ops.copy(self.target_embedding(token))  # (batch, emb)
        new_states = []
        for depth, cell in enumerate(self.decoder_lstms):
            if depth and masks is not None:
                x = x * masks[depth - 1]  # decoder_dropout, its masks drawn before the loop
            x, (h, c) = cell(x, states[2 * depth : 2 * depth + 2])
            new_states.extend([h, c])
        return x, new_states

    # --- training graph ---
    def call(self, inputs, training=None):
        encoder_tokens, decoder_tokens = inputs["encoder_tokens"], inputs["decoder_tokens"]
        states = self.encode(encoder_tokens, training=training)["encoder_states"]
        feed_truth = teacher_forcing_coins(
            decoder_tokens, self.teacher_forcing_probability, self.seed_generator, training
        )
        batch = ops.shape(decoder_tokens)[0]

        outputs = step_loop(
            self._step,
            self.output_projection,
            decoder_tokens,
            feed_truth,
            states,
            ops.zeros((batch, self.units), dtype=self.compute_dtype),
            sample=bool(training) and self.teacher_forcing_probability < 1.0,
            dropout_masks=step_dropout_masks(
                self.decoder_dropout, decoder_tokens, self.num_layers - 1, self.units, training
            ),
        )  # (batch, tgt, units)
        logits = self.output_projection(self.decoder_dropout(outputs, training=training))
        # Logits in float32 even under a mixed-precision policy (a stable softmax).
        return ops.cast(logits, "float32")  # (batch, tgt, vocab)

    # --- inference contract (see CONTRIBUTING.md) ---
    def decode_step(self, token, state, memory):
        """One step: token `(batch,)` -> logits `(batch, vocab)` float32, new state, None."""
        del memory  # no attention
        output, states = self._step(token, state["states"])
        logits = self.output_projection(output)
        return ops.cast(logits, "float32"), {"states": states}, None
