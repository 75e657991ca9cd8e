"""ConvS2S (`model.py`) as a subclassed Keras model, with scheduled sampling.

`diff functional.py subclassed.py` is what the choice of API changes; the attention's equations:
`keras_nmt/layers/attention.py` (section 7), reached through the decoder blocks.
"""

import keras
from keras import ops

from keras_nmt.models.convs2s.model import ConvS2S, mean_attention
from keras_nmt.models.recurrent_parts import (
    ScheduledSamplingModel,
    step_dropout_masks,
    step_loop,
    teacher_forcing_coins,
)
from keras_nmt.special_ids import PAD_ID


@keras.saving.register_keras_serializable(package="keras_nmt")
class ConvS2SSubclassed(ConvS2S, ScheduledSamplingModel):
    """`ConvS2S` written as a `keras.Model` subclass, with scheduled sampling.

    The wiring runs in `call`, `encode` and `decode_step` each time they are called; the
    padding masks are passed explicitly; `build` makes every weight before any call.

    Scheduled sampling (`ScheduledSamplingModel`), as the recurrent subclassed twins: a prediction
    to feed exists only once the position before it is computed, so then the decoder runs as a
    step loop (`recurrent_parts.step_loop` over `decode_step`'s one-column steps); while the
    probability is 1 every input is known at once and the decoder runs over the whole sequence,
    as the functional twin does, with the same numbers.
    """

    def build(self, inputs_shape=None):
        # Every weight is made here, eagerly, by one whole-sequence pass: under JAX a weight
        # first made inside the step loop's scan would be a tracer of it.
        tokens = ops.ones((1, 2), dtype="int32")
        self._decoder(tokens, self._encode(tokens))
        self.built = True

    # ---- Training call ----
    def call(self, inputs, training=None):
        encoder_tokens = ops.cast(inputs["encoder_tokens"], "int32")
        decoder_tokens = ops.cast(inputs["decoder_tokens"], "int32")
        memory = self._encode(encoder_tokens, training=training)
        logits, _ = self._decoder(decoder_tokens, memory, training=training)
        if not training:
            return logits
        # Drawn here, outside the branches and the loop (JAX draws nothing inside them).
        feed_truth = teacher_forcing_coins(
            decoder_tokens, self.teacher_forcing_probability, self.seed_generator, training)
        # The embedding's, each layer's input's and the output layer's, each cut to its width.
        width = max(self.embedding_dim, self.channels)
        masks = step_dropout_masks(self.target_dropout, decoder_tokens, self.num_layers + 2,
                                   width, training)
        sample = self.teacher_forcing_probability < 1.0
        return ops.cond(sample,
                        lambda: self._sampled_logits(decoder_tokens, feed_truth, memory, masks,
                                                     sample),
                        lambda: logits)

    def _encode(self, encoder_tokens, training=None):
        source_mask = ops.not_equal(encoder_tokens, PAD_ID)  # (batch, src_len)
        e = self.source_dropout(self.source_embedding(encoder_tokens), training=training)
        x = self.encoder_input(e)  # (batch, src_len, channels)
        for block in self.encoder_blocks:
            x = block(x, mask=source_mask, training=training)
        keys, values = self.keys_and_values(self.encoder_output(x), e, source_mask)
        return {"keys": keys, "values": values, "source_mask": source_mask}

    def _step(self, token, state, memory, masks=None):
        """One position: -> (the output layer's input `(batch, embedding_dim)`, new state,
        each layer's attention `(batch, 1, src_len)`). `masks`: `(num_layers + 2, batch,
        width)` dropout masks (the embedding's, then each layer's input's; the last is the
        output layer's, applied after the loop), or None."""
        g = self.target_embedding(ops.expand_dims(token, 1), start_index=state["step"])
        if masks is not None:
            g = g * masks[0][:, None, : self.embedding_dim]
        y = self.decoder_input(g)  # (batch, 1, channels)
        new_state, weights = {"step": state["step"] + 1}, []
        for i, block in enumerate(self.decoder_blocks):
            y, layer_weights, new_state[f"window_{i}"] = block.step(
                y, state[f"window_{i}"], g, memory["keys"], memory["values"],
                memory["source_mask"],
                dropout_mask=None if masks is None else masks[i + 1][:, None, : self.channels])
            weights.append(layer_weights)
        return self.output_hidden(y)[:, 0], new_state, weights

    def _sampled_logits(self, decoder_tokens, feed_truth, memory, masks, sample):
        """The decoder as a step loop, fed the truth where `feed_truth`, else its own arg-max.

        Every dropout mask comes in `masks` (drawn before the branch): no layer draws here."""
        batch = ops.shape(decoder_tokens)[0]

        def step(token, state, step_masks):
            hidden, state, _ = self._step(token, state, memory, step_masks)
            return hidden, state

        hidden = step_loop(
            step,
            self.output_projection,
            decoder_tokens,
            feed_truth,
            self.initial_state(memory, None),
            ops.zeros((batch, self.embedding_dim), dtype=self.compute_dtype),
            sample=sample,
            dropout_masks=masks,
        )  # (batch, tgt_len, embedding_dim)
        if masks is not None:  # the output layer's: (tgt_len, batch, width) -> like `hidden`
            hidden = hidden * ops.transpose(masks[:, -1, :, : self.embedding_dim], (1, 0, 2))
        return ops.cast(self.output_projection(hidden), "float32")

    # ---- Inference contract ----
    def encode(self, encoder_tokens):
        """Runs the encoder once per sentence: `(batch, src_len)` int32 ids padded with 0 ->
        the memory `{"keys", "values", "source_mask"}` (`model.py`)."""
        return self._encode(ops.convert_to_tensor(encoder_tokens, dtype="int32"), training=False)

    def decode_step(self, token, state, memory):
        """Feeds one target token per row (at position `state["step"]`), predicts the next.

        Returns:
            `(logits (batch, target_vocab_size) float32, new state, attention (batch, src_len))`.
        """
        token = ops.convert_to_tensor(token, dtype="int32")
        hidden, new_state, weights = self._step(token, state, memory)
        logits = ops.cast(self.output_projection(hidden), "float32")
        return logits, {key: new_state[key] for key in state}, mean_attention(weights)

    def layer_attention(self, encoder_tokens, decoder_tokens):
        """Every decoder layer's attention over the source, teacher-forced on `decoder_tokens`
        (`[START] + y`): float32 `(batch, num_layers, tgt_len, src_len)`."""
        encoder_tokens = ops.convert_to_tensor(encoder_tokens, dtype="int32")
        decoder_tokens = ops.convert_to_tensor(decoder_tokens, dtype="int32")
        return self._decoder(decoder_tokens, self._encode(encoder_tokens))[1]
