"""The Bahdanau attention encoder-decoder (Bahdanau et al. 2014): what its two twins share."""

import keras
from keras import ops

from keras_nmt.layers.attention import BahdanauAttention
from keras_nmt.models.constructor_config import ConstructorConfig
from keras_nmt.models.recurrent_parts import encoder_lstm, final_states


class BahdanauSeq2Seq(ConstructorConfig):
    """Bidirectional-LSTM encoder and additive-attention LSTM decoder.

    Bahdanau, Cho and Bengio (2014), "Neural Machine Translation by Jointly Learning to Align and
    Translate" (§3, appendix A), with LSTM cells in place of the paper's gated units:

    - annotations `h_j = [h→_j; h←_j]` from one bidirectional LSTM (`units` per direction),
      `(batch, src, 2 * units)`;
    - initial decoder state from the encoder's final states through tanh layers (the paper's
      `s_0 = tanh(W_s h←_1)`, here on both directions): `h_0 = tanh(W_h [h→; h←])` (`bridge_h`)
      and `c_0 = tanh(W_c [c→; c←])` (`bridge_c`);
    - at step `t` the previous state `s_{t-1}` queries the annotations (`attention`: the score and
      the softmax are in `keras_nmt/layers/attention.py`), and the context enters the
      recurrence: `s_t = LSTM([E y_{t-1}; c_t], s_{t-1})` (`decoder_lstm_0`);
    - output: `t_t = tanh(W_o [s_t; c_t])` (`output_hidden`, `units` wide; with `deep_output`,
      `[s_t; c_t; E y_{t-1}]` as in the paper's deep output, whose maxout is replaced by tanh),
      then `logits = output_projection(t_t)`.

    The twins: `functional.py`, `subclassed.py` (what every model's twins share:
    `ConstructorConfig`).

    Args:
        source_vocab_size, target_vocab_size: the vocabularies' sizes (id 0 is padding).
        embedding_dim: width of both embeddings.
        units: decoder LSTM width, and encoder width per direction.
        dropout: dropout on the annotations and before the output projection.
        attention_units: hidden size of the alignment model; `None` means `units`.
        deep_output: also feed `E y_{t-1}` to the output layer (the paper's deep output).

    Inference (the contract of `keras_nmt.decoding`): `encode(encoder_tokens)` -> memory
    `{"source_mask": (batch, src) bool, "encoder_outputs": (batch, src, 2 * units) (the
    annotations), "keys": (batch, src, attention_units) (`U h_j`, once per sentence),
    "encoder_states": [h_0, c_0] (the decoder's initial state, through the bridges) each
    (batch, units)}`; `initial_state(memory)` -> `{"states": [h_0, c_0]}`;
    `decode_step(token (batch,), state, memory)` -> `(logits (batch, vocab) float32, state,
    attention (batch, src))`, the attention 0 at padding, its rows summing to 1.

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
        self._store_arguments(locals())
        # --- layers (the same names in both twins) ---
        self.source_embedding = keras.layers.Embedding(
            source_vocab_size, embedding_dim, mask_zero=True, name="source_embedding"
        )
        # `units` per direction: `encoder_lstm` splits its width between the two directions.
        self.encoder = encoder_lstm(2 * units, bidirectional=True, name="encoder_lstm_0")
        self.encoder_dropout = keras.layers.Dropout(dropout, name="encoder_dropout")
        self.bridge_h = keras.layers.Dense(units, activation="tanh", name="bridge_h")
        self.bridge_c = keras.layers.Dense(units, activation="tanh", name="bridge_c")
        self.target_embedding = keras.layers.Embedding(
            target_vocab_size, embedding_dim, mask_zero=True, name="target_embedding"
        )
        self.attention = BahdanauAttention(attention_units or units, name="attention")
        self.decoder_cell = keras.layers.LSTMCell(units, name="decoder_lstm_0")
        self.output_hidden = keras.layers.Dense(units, activation="tanh", name="output_hidden")
        self.decoder_dropout = keras.layers.Dropout(dropout, name="decoder_dropout")
        self.output_projection = keras.layers.Dense(target_vocab_size, name="output_projection")
        self._wire(name=name, **kwargs)  # each twin its own way: functional.py, subclassed.py

    # --- encoder ---
    def _encoder(self, tokens, source_mask=None, training=None):
        """Source ids `(batch, src)` -> annotations `(batch, src, 2 * units)` and the decoder's
        initial `[h_0, c_0]`, each `(batch, units)`.

        The functional twin passes no `source_mask`: the mask `source_embedding` makes
        (`mask_zero`) flows through its graph with `x`. The subclassed twin passes it.
        """
        x = self.source_embedding(tokens)  # (batch, src, emb)
        x, *layer_states = self.encoder(x, mask=source_mask, training=training)
        # x: (batch, src, 2 * units)
        h, c = final_states(layer_states, bidirectional=True)  # (batch, 2 * units) each
        return self.encoder_dropout(x, training=training), [self.bridge_h(h), self.bridge_c(c)]

    # --- output ---
    def _readout(self, s, context, embedded):
        """`t_t = tanh(W_o [s_t; c_t])` (with `deep_output`, `[s_t; c_t; E y_{t-1}]`), `(batch,
        [target_len,] units)`, from the decoder state, the context and the embedded input."""
        features = [s, context, embedded] if self.deep_output else [s, context]
        return self.output_hidden(ops.concatenate(features, axis=-1))

    def _logits(self, hidden, training=None):
        """`t_t` `(batch, [tgt,] units)` -> logits `(batch, [tgt,] vocab)`, in float32 even under a
        mixed-precision policy (a stable softmax)."""
        logits = self.output_projection(self.decoder_dropout(hidden, training=training))
        return ops.cast(logits, "float32")

    # --- inference contract (see CONTRIBUTING.md) ---
    def initial_state(self, memory, max_length=None):
        """The decoder starts from the bridged encoder states: `{"states": [h_0, c_0]}`."""
        del max_length  # no cache to size
        return {"states": list(memory["encoder_states"])}
