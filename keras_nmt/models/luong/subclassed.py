"""The Luong global-attention encoder-decoder (`model.py`) as a subclassed Keras model with a
step loop.

`diff functional.py subclassed.py` is what the choice of API changes; the attention's scores and
softmax: `keras_nmt/layers/attention.py`, reached through `model.py`.
"""

import keras
from keras import ops

from keras_nmt.models.luong.model import LuongSeq2Seq
from keras_nmt.models.recurrent_parts import (
    build_by_one_step,
    final_states,
    reverse_padded_steps,
    step_dropout_masks,
    step_loop,
    teacher_forcing_coins,
)
from keras_nmt.special_ids import PAD_ID


@keras.saving.register_keras_serializable(package="keras_nmt")
class LuongSeq2SeqSubclassed(LuongSeq2Seq, keras.Model):
    """`LuongSeq2Seq` stepping through `LSTMCell`s one token at a time, with input feeding.

    The wiring runs in `call`, `encode` and `decode_step` each time they are called. The step
    loop (a `keras.ops.scan` over target positions) adds scheduled random teacher forcing
    (Bengio et al. 2015, "Scheduled Sampling for Sequence Prediction with Recurrent Neural
    Networks"): during training, at each step the decoder is fed the ground-truth previous token
    with probability `teacher_forcing_probability` (a variable that
    `keras_nmt.training.teacher_forcing_schedule.TeacherForcingSchedule` moves during `fit`), else
    its own previous argmax prediction; and input feeding (`input_feeding=True`, whose
    `decoder_lstm_0` weights no longer fit the functional twin). With probability 1 and no input
    feeding it computes exactly what its functional twin does. Without input feeding nothing of the
    attention flows back into the recurrence, so the loop runs only the decoder cells (attending
    inside it only to predict a token to feed) and all target positions attend at once after it, in
    larger matmuls.
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
        build_by_one_step(self, source_len=2)
        super().build(input_shape)

    # --- encoder ---
    def encode(self, encoder_tokens, training=None):
        """Encodes `(batch, source_len)` ids into the memory dict the decoder attends over."""
        source_mask = ops.not_equal(encoder_tokens, PAD_ID)  # (batch, src)
        tokens = self.reverse(encoder_tokens) if self.reverse else encoder_tokens
        x = self.source_embedding(tokens)  # (batch, src, emb)
        states = []
        for depth, lstm in enumerate(self.encoder_lstms):
            if depth:
                x = self.encoder_dropout(x, training=training)
            x, *layer_states = lstm(x, mask=source_mask, training=training)  # (batch, src, units)
            states.extend(final_states(layer_states, self.bidirectional))
        if self.reverse:
            x = reverse_padded_steps(x, source_mask)  # back in source order
        # A copy drops the Keras mask: `source_mask` carries the padding explicitly.
        x = ops.copy(x)
        return {
            "source_mask": source_mask,
            "encoder_outputs": x,
            "keys": self.attention.project_memory(x),
            "encoder_states": states,
        }

    # --- decoder ---
    def _embed(self, token):
        """Token ids `(batch,)` -> embedded `(batch, emb)`."""
        # A copy drops the Keras mask: a cell sees one token, there is nothing to mask.
        return ops.copy(self.target_embedding(token))

    def _cells(self, x, states, masks=None):
        """The decoder LSTM layers on one step's input `x` -> top output `h_t`, new states.

        `x` is `(batch, emb)` (with input feeding `(batch, emb + units)`), `states`
        `[h_0, c_0, ...]` each `(batch, units)`; `masks` (training only): `(num_layers - 1,
        batch, units)` dropout masks of this step.
        """
        new_states = []
        for depth, cell in enumerate(self.decoder_lstms):
            if depth and masks is not None:
                x = x * masks[depth - 1]  # decoder_dropout, its masks drawn before the loop
            x, (h, c) = cell(x, states[2 * depth : 2 * depth + 2])
            new_states.extend([h, c])
        return x, new_states  # x = h_t: (batch, units)

    def _attend(self, h, memory):
        """`h_t` -> `h̃_t` and the weights, over the memory dict of `encode`."""
        return self._attentional(
            h, memory["encoder_outputs"], memory["source_mask"], memory["keys"]
        )

    def _step(self, token, state, memory, masks=None):
        """Token `(batch,)`, state and memory -> `h̃_t` `(batch, units)`, new state, weights.

        `state` is `{"states": [h_0, c_0, ...], "attentional": h̃_{t-1} (batch, units)}`; the
        weights are `(batch, source_len)`. `masks`: as in `_cells`.
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
        feed_truth = teacher_forcing_coins(
            decoder_tokens, self.teacher_forcing_probability, self.seed_generator, training
        )
        batch = ops.shape(decoder_tokens)[0]
        zeros = ops.zeros((batch, self.units), dtype=self.compute_dtype)

        if self.input_feeding:
            # h̃_{t-1} feeds the next step: the attention runs inside the loop.
            def step(token, state, masks):
                attentional, state, _ = self._step(token, state, memory, masks)
                return attentional, state

            project = self.output_projection
            initial = {"states": list(memory["encoder_states"]), "attentional": zeros}
        else:
            # Only a fed prediction needs h̃_t inside the loop; the loop emits h_t and all target
            # positions attend at once after it (the functional twin's shape, larger matmuls).
            def step(token, states, masks):
                return self._cells(self._embed(token), states, masks)

            def project(h):
                return self.output_projection(self._attend(h, memory)[0])

            initial = list(memory["encoder_states"])

        outputs = step_loop(
            step,
            project,
            decoder_tokens,
            feed_truth,
            initial,
            zeros,
            sample=bool(training) and self.teacher_forcing_probability < 1.0,
            dropout_masks=step_dropout_masks(
                self.decoder_dropout, decoder_tokens, self.num_layers - 1, self.units, training
            ),
        )  # (batch, tgt, units): h̃_t with input feeding, else h_t
        if not self.input_feeding:
            outputs, _ = self._attend(outputs, memory)  # (batch, tgt, units)
        logits = self.output_projection(self.decoder_dropout(outputs, training=training))
        # Logits in float32 even under a mixed-precision policy (a stable softmax).
        return ops.cast(logits, "float32")  # (batch, tgt, vocab)

    # --- inference contract (see CONTRIBUTING.md) ---
    def decode_step(self, token, state, memory):
        """One step: token `(batch,)` -> logits `(batch, vocab)` float32, state, attention."""
        attentional, new_state, weights = self._step(token, state, memory)
        logits = self.output_projection(attentional)
        return ops.cast(logits, "float32"), new_state, ops.cast(weights, "float32")
