"""The Bahdanau attention encoder-decoder (`model.py`) in the Keras functional API.

`diff functional.py subclassed.py` is what the choice of API changes; the attention's score and
softmax: `keras_nmt/layers/attention.py`.
"""

import keras
from keras import ops

from keras_nmt.layers.bahdanau_decoder_rnn import BahdanauDecoderRNN
from keras_nmt.models.bahdanau.model import BahdanauSeq2Seq
from keras_nmt.models.functional_init import functional_init
from keras_nmt.models.recurrent_parts import attention_memory, attention_step_inputs
from keras_nmt.special_ids import PAD_ID


@keras.saving.register_keras_serializable(package="keras_nmt")
class BahdanauSeq2SeqFunctional(BahdanauSeq2Seq, keras.Model):
    """`BahdanauSeq2Seq` as a static functional graph with `mask_zero` masking.

    The layers are wired once, on symbolic inputs. The decoder runs as one layer,
    `BahdanauDecoderRNN` (a `keras.ops.scan` holding the cell and the attention); from the same
    layer objects the constructor also builds the inference models `encoder_model` (source ids
    -> annotations, attention keys, initial states) and `decoder_step_model` (one token + memory
    + states -> logits, attention, new states).
    """

    def _wire(self, **kwargs):
        self.decoder_rnn = BahdanauDecoderRNN(self.decoder_cell, self.attention,
                                              name="decoder_rnn")
        # --- training graph ---
        encoder_tokens = keras.Input((None,), dtype="int32", name="encoder_tokens")
        decoder_tokens = keras.Input((None,), dtype="int32", name="decoder_tokens")
        annotations, initial_states = self._encoder(encoder_tokens)
        # The keys are computed inside `decoder_rnn` here (once per sentence): a
        # `project_memory` node would add the attention's inner Dense as a layer of this graph.
        logits, _, _ = self._decoder(
            decoder_tokens, initial_states, annotations, ops.not_equal(encoder_tokens, PAD_ID)
        )
        functional_init(
            self,
            inputs={"encoder_tokens": encoder_tokens, "decoder_tokens": decoder_tokens},
            outputs=logits,
            **kwargs,
        )
        # --- inference models, built from the same layer objects ---
        source = keras.Input((None,), dtype="int32", name="encoder_tokens")
        source_annotations, source_states = self._encoder(source)
        self.encoder_model = keras.Model(
            source,
            [source_annotations, self.attention.project_memory(source_annotations),
             *source_states],
            name="encoder_model",
        )
        token = keras.Input((1,), dtype="int32", name="token")
        memory_annotations = keras.Input((None, 2 * self.units), name="encoder_outputs")
        memory_keys = keras.Input((None, self.attention.units), name="keys")
        memory_mask = keras.Input((None,), dtype="bool", name="source_mask")
        step_states = [keras.Input((self.units,), name=f"state_{kind}_0") for kind in ("h", "c")]
        step_logits, step_weights, step_new_states = self._decoder(
            token, step_states, memory_annotations, memory_mask, keys=memory_keys
        )
        self.decoder_step_model = keras.Model(
            [token, memory_annotations, memory_keys, memory_mask, *step_states],
            [step_logits, step_weights, *step_new_states],
            name="decoder_step_model",
        )

    # --- decoder ---
    def _decoder(self, tokens, states, annotations, source_mask, keys=None):
        """Target ids `(batch, tgt)`, initial states and the memory -> logits `(batch, tgt,
        vocab)`, attention weights `(batch, tgt, src)`, final states."""
        embedded = self.target_embedding(tokens)  # (batch, tgt, emb)
        outputs, contexts, weights, h, c = self.decoder_rnn(
            embedded, annotations, keys=keys, memory_mask=source_mask, initial_states=states
        )  # (batch, tgt, units), (batch, tgt, 2 * units), (batch, tgt, src)
        hidden = self._readout(outputs, contexts, embedded)  # (batch, tgt, units)
        return self._logits(hidden), weights, [h, c]

    # --- inference contract (see CONTRIBUTING.md) ---
    def encode(self, encoder_tokens):
        """Encodes `(batch, source_len)` ids into the memory dict the decoder attends over."""
        annotations, keys, *states = self.encoder_model(encoder_tokens)
        return attention_memory(ops.not_equal(encoder_tokens, PAD_ID), annotations, keys, states)

    def decode_step(self, token, state, memory):
        """One step: token `(batch,)` -> logits `(batch, vocab)` float32, state, attention."""
        logits, weights, *states = self.decoder_step_model(
            attention_step_inputs(token, state, memory))
        return logits[:, 0], {"states": states}, ops.cast(weights[:, 0], "float32")
