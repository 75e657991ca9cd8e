"""Bahdanau attention encoder-decoder (Bahdanau et al. 2014) in the Keras functional API.

Twin of `bahdanau_seq2seq_subclassed.py`: same constructor arguments, `get_config`, layer names
and order of sections, so `diff` shows only the difference between the two API styles.
"""

import keras
from keras import ops

from keras_nmt.layers.attention import BahdanauAttention
from keras_nmt.layers.bahdanau_decoder_rnn import BahdanauDecoderRNN
from keras_nmt.models.constructor_config import ConstructorConfig
from keras_nmt.models.recurrent_parts import encoder_lstm, final_states
from keras_nmt.special_ids import PAD_ID


@keras.saving.register_keras_serializable(package="keras_nmt")
class BahdanauSeq2SeqFunctional(ConstructorConfig, keras.Model):
    """Bidirectional-LSTM encoder and additive-attention LSTM decoder, as a functional graph.

    Bahdanau, Cho and Bengio (2014), "Neural Machine Translation by Jointly Learning to Align and
    Translate" (§3, appendix A), with LSTM cells in place of the paper's gated units:

    - annotations `h_j = [h→_j; h←_j]` from one bidirectional LSTM (`units` per direction),
      `(batch, src, 2 * units)`;
    - initial decoder state from the encoder's final states through tanh layers (the paper's
      `s_0 = tanh(W_s h←_1)`, here on both directions): `h_0 = tanh(W_h [h→; h←])` (`bridge_h`)
      and `c_0 = tanh(W_c [c→; c←])` (`bridge_c`);
    - at step `t` the previous state `s_{t-1}` queries the annotations (`attention`), and the
      context enters the recurrence: `s_t = LSTM([E y_{t-1}; c_t], s_{t-1})` (`decoder_lstm_0`);
    - output: `t_t = tanh(W_o [s_t; c_t])` (`output_hidden`, `units` wide; with `deep_output`,
      `[s_t; c_t; E y_{t-1}]` as in the paper's deep output, whose maxout is replaced by tanh),
      then `logits = output_projection(t_t)`.

    The functional graph runs the decoder with `BahdanauDecoderRNN` (a `keras.ops.scan`); from
    the same layer objects the constructor also builds the inference models `encoder_model`
    (source ids -> annotations, attention keys, initial states) and `decoder_step_model` (one
    token + memory + states -> logits, attention, new states).

    Args:
        source_vocab_size: size of the source vocabulary (id 0 is padding).
        target_vocab_size: size of the target vocabulary (id 0 is padding).
        embedding_dim: width of both embeddings.
        units: decoder LSTM width, and encoder width per direction.
        dropout: dropout on the annotations and before the output projection.
        attention_units: hidden size of the alignment model; `None` means `units`.
        deep_output: also feed `E y_{t-1}` to the output layer (the paper's deep output).

    Call:
        inputs: `{"encoder_tokens": (batch, source_len) int32,
            "decoder_tokens": (batch, target_len) int32}`.
        returns: logits `(batch, target_len, target_vocab_size)`.

    Example:
        >>> model = BahdanauSeq2SeqFunctional(source_vocab_size=40, target_vocab_size=20, units=64)
        >>> logits = model({"encoder_tokens": src, "decoder_tokens": tgt_in})
    """

    has_attention = True
    model_name = "bahdanau"

    def __init__(
        self,
        source_vocab_size,
        target_vocab_size,
        embedding_dim=128,
        units=256,
        dropout=0.0,
        attention_units=None,
        deep_output=False,
        name="bahdanau_seq2seq",
        **kwargs,
    ):
        # --- layers (the same names in both twins) ---
        source_embedding = keras.layers.Embedding(
            source_vocab_size, embedding_dim, mask_zero=True, name="source_embedding"
        )
        # `units` per direction: `encoder_lstm` splits its width between the two directions.
        encoder = encoder_lstm(2 * units, bidirectional=True, name="encoder_lstm_0")
        encoder_dropout = keras.layers.Dropout(dropout, name="encoder_dropout")
        bridge_h = keras.layers.Dense(units, activation="tanh", name="bridge_h")
        bridge_c = keras.layers.Dense(units, activation="tanh", name="bridge_c")
        target_embedding = keras.layers.Embedding(
            target_vocab_size, embedding_dim, mask_zero=True, name="target_embedding"
        )
        attention = BahdanauAttention(attention_units or units, name="attention")
        decoder_cell = keras.layers.LSTMCell(units, name="decoder_lstm_0")
        decoder_rnn = BahdanauDecoderRNN(decoder_cell, attention, name="decoder_rnn")
        output_hidden = keras.layers.Dense(units, activation="tanh", name="output_hidden")
        decoder_dropout = keras.layers.Dropout(dropout, name="decoder_dropout")
        output_projection = keras.layers.Dense(target_vocab_size, name="output_projection")

        # --- encoder ---
        def encode(tokens):
            x = source_embedding(tokens)  # (batch, src, emb)
            x, *layer_states = encoder(x)  # x: (batch, src, 2 * units)
            h, c = final_states(layer_states, bidirectional=True)  # (batch, 2 * units) each
            return encoder_dropout(x), [bridge_h(h), bridge_c(c)]  # states: (batch, units)

        # --- decoder ---
        def decode(tokens, states, annotations, source_mask, keys=None):
            embedded = target_embedding(tokens)  # (batch, tgt, emb)
            outputs, contexts, weights, h, c = decoder_rnn(
                embedded, annotations, keys=keys, memory_mask=source_mask, initial_states=states
            )  # (batch, tgt, units), (batch, tgt, 2 * units), (batch, tgt, src)
            features = [outputs, contexts, embedded] if deep_output else [outputs, contexts]
            hidden = output_hidden(ops.concatenate(features, axis=-1))  # (batch, tgt, units)
            logits = output_projection(decoder_dropout(hidden))  # (batch, tgt, vocab)
            # Logits in float32 even under a mixed-precision policy (a stable softmax).
            logits = ops.cast(logits, "float32")
            return logits, weights, [h, c]

        # --- training graph ---
        encoder_tokens = keras.Input((None,), dtype="int32", name="encoder_tokens")
        decoder_tokens = keras.Input((None,), dtype="int32", name="decoder_tokens")
        annotations, initial_states = encode(encoder_tokens)
        # The keys are computed inside `decoder_rnn` here (once per sentence): a
        # `project_memory` node would add the attention's inner Dense as a layer of this graph.
        logits, _, _ = decode(
            decoder_tokens, initial_states, annotations, ops.not_equal(encoder_tokens, PAD_ID)
        )
        super().__init__(
            inputs={"encoder_tokens": encoder_tokens, "decoder_tokens": decoder_tokens},
            outputs=logits,
            name=name,
            **kwargs,
        )
        self.source_vocab_size = source_vocab_size
        self.target_vocab_size = target_vocab_size
        self.embedding_dim = embedding_dim
        self.units = units
        self.dropout = dropout
        self.attention_units = attention_units
        self.deep_output = deep_output

        # --- inference models, built from the same layer objects ---
        source = keras.Input((None,), dtype="int32", name="encoder_tokens")
        source_annotations, source_states = encode(source)
        self.encoder_model = keras.Model(
            source,
            [source_annotations, attention.project_memory(source_annotations), *source_states],
            name="encoder_model",
        )
        token = keras.Input((1,), dtype="int32", name="token")
        memory_annotations = keras.Input((None, 2 * units), name="encoder_outputs")
        memory_keys = keras.Input((None, attention_units or units), name="keys")
        memory_mask = keras.Input((None,), dtype="bool", name="source_mask")
        step_states = [keras.Input((units,), name=f"state_{kind}_0") for kind in ("h", "c")]
        step_logits, step_weights, step_new_states = decode(
            token, step_states, memory_annotations, memory_mask, keys=memory_keys
        )
        self.decoder_step_model = keras.Model(
            [token, memory_annotations, memory_keys, memory_mask, *step_states],
            [step_logits, step_weights, *step_new_states],
            name="decoder_step_model",
        )

    # --- inference contract (see CONTRIBUTING.md) ---
    def encode(self, encoder_tokens):
        """Encodes `(batch, source_len)` ids into the memory dict the decoder attends over.

        Returns:
            `{"source_mask": (batch, src) bool, "encoder_outputs": (batch, src, 2 * units)
            (the annotations), "keys": (batch, src, attention_units) (`U h_j`, once per
            sentence), "encoder_states": [h_0, c_0] (the decoder's initial state, through
            the bridges) each (batch, units)}`.
        """
        annotations, keys, *states = self.encoder_model(encoder_tokens)
        # Copies drop the Keras masks: `source_mask` carries the padding explicitly.
        return {
            "source_mask": ops.not_equal(encoder_tokens, PAD_ID),
            "encoder_outputs": ops.copy(annotations),
            "keys": ops.copy(keys),
            "encoder_states": states,
        }

    def initial_state(self, memory, max_length=None):
        """The decoder starts from the bridged encoder states: `{"states": [h_0, c_0]}`."""
        del max_length  # no cache to size
        return {"states": list(memory["encoder_states"])}

    def decode_step(self, token, state, memory):
        """One step: token `(batch,)` -> logits `(batch, vocab)` float32, state, attention.

        The attention is `(batch, src)` over source positions (0 at padding, rows sum to 1).
        """
        logits, weights, *states = self.decoder_step_model(
            [
                ops.expand_dims(token, 1),
                memory["encoder_outputs"],
                memory["keys"],
                memory["source_mask"],
                *state["states"],
            ]
        )
        return (
            logits[:, 0],
            {"states": states},
            ops.cast(weights[:, 0], "float32"),
        )
