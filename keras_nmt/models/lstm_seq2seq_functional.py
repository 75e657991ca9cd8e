"""LSTM encoder-decoder (Sutskever et al. 2014) in the Keras functional API.

Twin of `lstm_seq2seq_subclassed.py`: same constructor arguments, `get_config`, layer names and
order of sections, so `diff` shows only the difference between the two API styles.
"""

import keras
from keras import ops

from keras_nmt.layers.reverse_padded_sequence import ReversePaddedSequence
from keras_nmt.models.constructor_config import ConstructorConfig
from keras_nmt.models.recurrent_parts import encoder_lstm, final_states, sequence_lstm
from keras_nmt.special_ids import PAD_ID


@keras.saving.register_keras_serializable(package="keras_nmt")
class LstmSeq2SeqFunctional(ConstructorConfig, keras.Model):
    """Stacked-LSTM encoder-decoder as a static functional graph with `mask_zero` masking.

    Sutskever, Vinyals and Le (2014), "Sequence to Sequence Learning with Neural Networks".
    The encoder's final `(h, c)` of each layer initialise the decoder layer of the same depth;
    the decoder reads the target shifted right (teacher forcing). From the same layer objects
    (shared weights) the constructor also builds the separate inference models of the classic
    Keras character-level example: `encoder_model` (source ids -> states) and
    `decoder_step_model` (one token + states -> logits + new states).

    Args:
        source_vocab_size: size of the source vocabulary (id 0 is padding).
        target_vocab_size: size of the target vocabulary (id 0 is padding).
        embedding_dim: width of both embeddings.
        units: LSTM width (with `bidirectional`, each direction has `units // 2`, as in OpenNMT's
            "brnn", so the concatenated states fit the decoder).
        num_layers: LSTM layers in the encoder and in the decoder.
        dropout: dropout on the inputs of the upper LSTM layers and before the output layer.
        reverse_source: feed the source backwards (Sutskever et al. §3.3).
        bidirectional: bidirectional encoder layers.

    Call:
        inputs: `{"encoder_tokens": (batch, source_len) int32,
            "decoder_tokens": (batch, target_len) int32}`.
        returns: logits `(batch, target_len, target_vocab_size)`.

    Example:
        >>> model = LstmSeq2SeqFunctional(source_vocab_size=40, target_vocab_size=20, units=64)
        >>> logits = model({"encoder_tokens": src, "decoder_tokens": tgt_in})
    """

    has_attention = False
    model_name = "lstm"

    def __init__(
        self,
        source_vocab_size,
        target_vocab_size,
        embedding_dim=128,
        units=256,
        num_layers=1,
        dropout=0.0,
        reverse_source=False,
        bidirectional=False,
        name="lstm_seq2seq",
        **kwargs,
    ):
        # --- layers (the same names in both twins) ---
        source_embedding = keras.layers.Embedding(
            source_vocab_size, embedding_dim, mask_zero=True, name="source_embedding"
        )
        reverse = ReversePaddedSequence(name="reverse_source") if reverse_source else None
        encoder_lstms = [
            encoder_lstm(units, bidirectional, name=f"encoder_lstm_{i}") for i in range(num_layers)
        ]
        encoder_dropout = keras.layers.Dropout(dropout, name="encoder_dropout")
        target_embedding = keras.layers.Embedding(
            target_vocab_size, embedding_dim, mask_zero=True, name="target_embedding"
        )
        decoder_lstms = [sequence_lstm(units, name=f"decoder_lstm_{i}") for i in range(num_layers)]
        decoder_dropout = keras.layers.Dropout(dropout, name="decoder_dropout")
        output_projection = keras.layers.Dense(target_vocab_size, name="output_projection")

        # --- encoder ---
        def encode(tokens):
            x = source_embedding(reverse(tokens) if reverse else tokens)  # (batch, src, emb)
            states = []
            for depth, lstm in enumerate(encoder_lstms):
                if depth:
                    x = encoder_dropout(x)
                x, *layer_states = lstm(x)  # x: (batch, src, units)
                states.extend(final_states(layer_states, bidirectional))
            return states  # [h_0, c_0, h_1, c_1, ...], each (batch, units)

        # --- decoder ---
        def decode(tokens, states):
            x = target_embedding(tokens)  # (batch, tgt, emb)
            new_states = []
            for depth, lstm in enumerate(decoder_lstms):
                if depth:
                    x = decoder_dropout(x)
                x, h, c = lstm(x, initial_state=states[2 * depth : 2 * depth + 2])
                new_states.extend([h, c])
            # Logits in float32 even under a mixed-precision policy (a stable softmax).
            logits = output_projection(decoder_dropout(x))  # (batch, tgt, vocab)
            logits = ops.cast(logits, "float32")
            return logits, new_states

        # --- training graph ---
        encoder_tokens = keras.Input((None,), dtype="int32", name="encoder_tokens")
        decoder_tokens = keras.Input((None,), dtype="int32", name="decoder_tokens")
        logits, _ = decode(decoder_tokens, encode(encoder_tokens))
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
        self.num_layers = num_layers
        self.dropout = dropout
        self.reverse_source = reverse_source
        self.bidirectional = bidirectional

        # --- inference models, built from the same layer objects ---
        source = keras.Input((None,), dtype="int32", name="encoder_tokens")
        self.encoder_model = keras.Model(source, encode(source), name="encoder_model")
        token = keras.Input((1,), dtype="int32", name="token")
        step_states = [
            keras.Input((units,), name=f"state_{kind}_{depth}")
            for depth in range(num_layers)
            for kind in ("h", "c")
        ]
        step_logits, step_new_states = decode(token, step_states)
        self.decoder_step_model = keras.Model(
            [token, *step_states], [step_logits, *step_new_states], name="decoder_step_model"
        )

    # --- inference contract (see CONTRIBUTING.md) ---
    def encode(self, encoder_tokens):
        """Encodes `(batch, source_len)` ids into the memory dict the decoder starts from."""
        states = self.encoder_model(encoder_tokens)
        return {"source_mask": ops.not_equal(encoder_tokens, PAD_ID), "encoder_states": states}

    def initial_state(self, memory, max_length=None):
        """The decoder starts from the encoder's final states: `{"states": [h_0, c_0, ...]}`."""
        del max_length  # no cache to size
        return {"states": list(memory["encoder_states"])}

    def decode_step(self, token, state, memory):
        """One step: token `(batch,)` -> logits `(batch, vocab)` float32, new state, None."""
        del memory  # no attention
        logits, *states = self.decoder_step_model([ops.expand_dims(token, 1), *state["states"]])
        return logits[:, 0], {"states": states}, None

