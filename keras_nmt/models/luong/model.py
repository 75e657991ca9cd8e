"""The Luong global-attention encoder-decoder (Luong et al. 2015): what its two twins share."""

import keras
from keras import ops

from keras_nmt.layers.attention import LuongAttention
from keras_nmt.layers.reverse_padded_sequence import ReversePaddedSequence
from keras_nmt.models.constructor_config import ConstructorConfig
from keras_nmt.models.recurrent_parts import encoder_lstm


class LuongSeq2Seq(ConstructorConfig):
    """Stacked-LSTM encoder-decoder with Luong global attention.

    Luong, Pham and Manning (2015), "Effective Approaches to Attention-based Neural Machine
    Translation", §3.1. The encoder is the LSTM model's (stacked, optionally reversed or
    bidirectional); its final `(h, c)` of each layer initialise the decoder layer of the same
    depth. The top decoder output `h_t` attends over the encoder outputs `h̄_s` (eq. 7-8, score
    `attention_score`; the scores and the softmax: `keras_nmt/layers/attention.py`):
    `c_t = Σ_s a_t(s) h̄_s`, the attentional vector is `h̃_t = tanh(W_c [c_t; h_t])` (eq. 5) and
    the logits are `W_s h̃_t` (eq. 6).

    Input feeding (§3.3) feeds `h̃_{t-1}` back into the decoder: `h̃_{t-1}` is concatenated to the
    embedded input of the first decoder layer (`h̃_0 = 0`), so `decoder_lstm_0` reads
    `embedding_dim + units` features. It needs a step loop: only the subclassed twin takes it.

    The twins, `LuongSeq2SeqFunctional` (`functional.py`) and `LuongSeq2SeqSubclassed`
    (`subclassed.py`), take these arguments, make these layers (the same names, so weights copy
    by name: `keras_nmt.models.copy_weights_by_layer_name`) and give the same numbers; they
    differ only in how the layers are wired.

    Args:
        source_vocab_size: size of the source vocabulary (id 0 is padding).
        target_vocab_size: size of the target vocabulary (id 0 is padding).
        embedding_dim: width of both embeddings.
        units: LSTM width, also the width of the attentional vector `h̃_t` (with
            `bidirectional`, each encoder direction has `units // 2`).
        num_layers: LSTM layers in the encoder and in the decoder.
        dropout: dropout on the inputs of the upper LSTM layers and before the output layer.
        reverse_source: feed the source backwards (the encoder outputs are put back in source
            order, so attention weights line up with the source tokens).
        bidirectional: bidirectional encoder layers.
        attention_score: `"dot"`, `"general"` or `"concat"` (Luong eq. 8).
        input_feeding: feed `h̃_{t-1}` into the first decoder layer (Luong §3.3); subclassed
            twin only.

    The defaults are the training defaults (the cards' options), so the class built without
    arguments is the model `keras-nmt train --model luong` trains.

    Call:
        inputs: `{"encoder_tokens": (batch, source_len) int32,
            "decoder_tokens": (batch, target_len) int32}`.
        returns: logits `(batch, target_len, target_vocab_size)` float32.

    Inference (the contract of `keras_nmt.decoding`): `encode(encoder_tokens)` -> memory
    `{"source_mask": (batch, src) bool, "encoder_outputs": (batch, src, units), "keys": (batch,
    src, units) (the attention's memory projection, once per sentence), "encoder_states":
    [h_0, c_0, ...] each (batch, units)}`; `initial_state(memory)`; `decode_step(token (batch,),
    state, memory)` -> `(logits (batch, vocab) float32, state, attention (batch, src))`, the
    attention 0 at padding, its rows summing to 1.

    Example:
        >>> model = LuongSeq2SeqFunctional(source_vocab_size=40, target_vocab_size=20, units=64)
        >>> logits = model({"encoder_tokens": src, "decoder_tokens": tgt_in})
    """

    has_attention = True
    model_name = "luong"

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
        attention_score="general",
        input_feeding=False,
        name="luong_seq2seq",
        **kwargs,
    ):
        self.source_vocab_size = source_vocab_size
        self.target_vocab_size = target_vocab_size
        self.embedding_dim = embedding_dim
        self.units = units
        self.num_layers = num_layers
        self.dropout = dropout
        self.reverse_source = reverse_source
        self.bidirectional = bidirectional
        self.attention_score = attention_score
        self.input_feeding = input_feeding
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
        # `units=` lets `project_memory` run before the layer has seen a query.
        self.attention = LuongAttention(score=attention_score, units=units, name="attention")
        self.attentional_projection = keras.layers.Dense(
            units, activation="tanh", use_bias=False, name="attentional_projection"
        )
        self.output_projection = keras.layers.Dense(target_vocab_size, name="output_projection")
        self._wire(name=name, **kwargs)  # each twin its own way: functional.py, subclassed.py

    # --- attention ---
    def _attentional(self, h, encoder_outputs, source_mask, keys=None):
        """`h_t` `(batch, [target_len,] units)` -> `h̃_t = tanh(W_c [c_t; h_t])` of the same
        shape (eq. 5) and the weights `(batch, [target_len,] source_len)`.

        `keys` is the attention's memory projection (`LuongAttention.project_memory`); computed
        inside the attention when None.
        """
        context, weights = self.attention(
            h, encoder_outputs, memory_mask=source_mask, projected_memory=keys
        )  # c_t: (batch, [tgt,] units), a_t: (batch, [tgt,] src)
        attentional = self.attentional_projection(ops.concatenate([context, h], axis=-1))
        return attentional, weights

    # --- inference contract (see CONTRIBUTING.md) ---
    def initial_state(self, memory, max_length=None):
        """`{"states": [h_0, c_0, ...] (the encoder's), "attentional": h̃_0 = 0 (batch, units)}`.

        `"attentional"` is `h̃_{t-1}`, fed back with input feeding; both twins carry it.
        """
        del max_length  # no cache to size
        states = list(memory["encoder_states"])
        return {"states": states, "attentional": ops.zeros_like(states[0])}
