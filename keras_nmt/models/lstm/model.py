"""The LSTM encoder-decoder (Sutskever et al. 2014): what its two twins share."""

import keras
from keras import ops

from keras_nmt.layers.reverse_padded_sequence import ReversePaddedSequence
from keras_nmt.models.constructor_config import ConstructorConfig
from keras_nmt.models.recurrent_parts import encoder_lstm, final_states


class LstmSeq2Seq(ConstructorConfig):
    """Stacked-LSTM encoder-decoder.

    Sutskever, Vinyals and Le (2014), "Sequence to Sequence Learning with Neural Networks".
    The encoder's final `(h, c)` of each layer initialise the decoder layer of the same depth;
    the decoder reads the target shifted right (teacher forcing) and a `Dense` layer projects its
    top output onto the target vocabulary. No attention: the whole source reaches the decoder
    through those states. The Luong model (`keras_nmt/models/luong/model.py`) is this one with
    attention on the decoder's output: it subclasses this class.

    The twins: `functional.py`, `subclassed.py` (what every model's twins share:
    `ConstructorConfig`).

    Args:
        source_vocab_size, target_vocab_size: the vocabularies' sizes (id 0 is padding).
        embedding_dim: width of both embeddings.
        units: LSTM width (with `bidirectional`, each direction has `units // 2`, as in OpenNMT's
            "brnn", so the concatenated states fit the decoder).
        num_layers: LSTM layers in the encoder and in the decoder.
        dropout: dropout on the inputs of the upper LSTM layers and before the output layer.
        reverse_source: feed the source backwards (Sutskever et al. §3.3).
        bidirectional: bidirectional encoder layers.

    Inference (the contract of `keras_nmt.decoding`): `encode(encoder_tokens)` -> memory
    `{"source_mask": (batch, src) bool, "encoder_states": [h_0, c_0, h_1, c_1, ...] each
    (batch, units)}`; `initial_state(memory)` -> `{"states": [h_0, c_0, ...]}`;
    `decode_step(token (batch,), state, memory)` -> `(logits (batch, vocab) float32, state,
    None)`.

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
        self._store_arguments(locals())
        # --- layers (the same names in both twins) ---
        self.source_embedding = keras.layers.Embedding(
            source_vocab_size, embedding_dim, mask_zero=True, name="source_embedding"
        )
        self.reverse = ReversePaddedSequence(name="reverse_source") if reverse_source else None
        self.encoder_lstms = [
            encoder_lstm(units, bidirectional, name=f"encoder_lstm_{i}") for i in range(num_layers)
        ]
        self.encoder_dropout = keras.layers.Dropout(dropout, name="encoder_dropout")
        self.target_embedding = keras.layers.Embedding(
            target_vocab_size, embedding_dim, mask_zero=True, name="target_embedding"
        )
        self.decoder_lstms = [self._decoder_lstm(units, f"decoder_lstm_{i}")
                              for i in range(num_layers)]
        self.decoder_dropout = keras.layers.Dropout(dropout, name="decoder_dropout")
        self._output_layers()
        self._wire(name=name, **kwargs)  # each twin its own way: functional.py, subclassed.py

    def _output_layers(self):
        """The layers on the decoder's top output `h_t`: the projection onto the target
        vocabulary (the Luong model adds its attention before it)."""
        self.output_projection = keras.layers.Dense(self.target_vocab_size,
                                                    name="output_projection")

    # --- encoder ---
    def _encoder(self, tokens, source_mask=None, training=None):
        """Source ids `(batch, src)` -> the top outputs `(batch, src, units)` and the final states
        `[h_0, c_0, h_1, c_1, ...]`, each `(batch, units)`.

        The functional twin passes no `source_mask`: the mask `source_embedding` makes
        (`mask_zero`) flows through its graph with `x`. The subclassed twin passes it.
        """
        x = self.source_embedding(self.reverse(tokens) if self.reverse else tokens)
        states = []
        for depth, lstm in enumerate(self.encoder_lstms):
            if depth:
                x = self.encoder_dropout(x, training=training)
            x, *layer_states = lstm(x, mask=source_mask, training=training)  # (batch, src, units)
            states.extend(final_states(layer_states, self.bidirectional))
        return x, states

    # --- output ---
    def _logits(self, outputs, training=None):
        """The decoder's top outputs `(batch, [tgt,] units)` -> logits `(batch, [tgt,] vocab)`,
        in float32 even under a mixed-precision policy (a stable softmax)."""
        logits = self.output_projection(self.decoder_dropout(outputs, training=training))
        return ops.cast(logits, "float32")

    # --- inference contract (see CONTRIBUTING.md) ---
    def initial_state(self, memory, max_length=None):
        """The decoder starts from the encoder's final states: `{"states": [h_0, c_0, ...]}`."""
        del max_length  # no cache to size
        return {"states": list(memory["encoder_states"])}
