"""The Luong global-attention encoder-decoder (Luong et al. 2015): what its two twins share."""

import keras
from keras import ops

from keras_nmt.layers.attention import LuongAttention
from keras_nmt.layers.reverse_padded_sequence import reverse_padded
from keras_nmt.models.lstm.model import LstmSeq2Seq
from keras_nmt.special_ids import PAD_ID


class LuongSeq2Seq(LstmSeq2Seq):
    """The stacked-LSTM encoder-decoder (`LstmSeq2Seq`) with Luong global attention.

    Luong, Pham and Manning (2015), "Effective Approaches to Attention-based Neural Machine
    Translation", §3.1. The encoder and the decoder's LSTM layers are the LSTM model's (stacked,
    optionally reversed or bidirectional; the final `(h, c)` of each encoder layer initialise the
    decoder layer of the same depth). The top decoder output `h_t` attends over the encoder
    outputs `h̄_s` (eq. 7-8, score `attention_score`; the scores and the softmax:
    `keras_nmt/layers/attention.py`): `c_t = Σ_s a_t(s) h̄_s`, the attentional vector is
    `h̃_t = tanh(W_c [c_t; h_t])` (eq. 5) and the logits are `W_s h̃_t` (eq. 6).

    Input feeding (§3.3) feeds `h̃_{t-1}` back into the decoder: `h̃_{t-1}` is concatenated to the
    embedded input of the first decoder layer (`h̃_0 = 0`), so `decoder_lstm_0` reads
    `embedding_dim + units` features. It needs a step loop: only the subclassed twin takes it.

    The twins: `functional.py`, `subclassed.py` (what every model's twins share:
    `ConstructorConfig`).

    It takes the LSTM model's arguments (`LstmSeq2Seq`; `units` is also the width of `h̃_t`, and
    with `reverse_source` the encoder outputs are put back in source order, so that attention
    weights line up with the source tokens) and two of its own.

    Args:
        attention_score: `"dot"`, `"general"` or `"concat"` (Luong eq. 8).
        input_feeding: feed `h̃_{t-1}` into the first decoder layer (Luong §3.3); subclassed
            twin only.

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

    def __init__(self, source_vocab_size, target_vocab_size, embedding_dim=128, units=256,
                 num_layers=1, dropout=0.0, reverse_source=False, bidirectional=False,
                 attention_score="general", input_feeding=False, name="luong_seq2seq", **kwargs):
        self.attention_score = attention_score
        self.input_feeding = input_feeding
        super().__init__(source_vocab_size, target_vocab_size, embedding_dim, units, num_layers,
                         dropout, reverse_source, bidirectional, name=name, **kwargs)

    def _output_layers(self):
        """The attention and the attentional layer `W_c` (eq. 5), then the LSTM model's
        projection onto the target vocabulary (`W_s`, eq. 6)."""
        # `units=` lets `project_memory` run before the layer has seen a query.
        self.attention = LuongAttention(score=self.attention_score, units=self.units,
                                        name="attention")
        self.attentional_projection = keras.layers.Dense(
            self.units, activation="tanh", use_bias=False, name="attentional_projection"
        )
        super()._output_layers()

    # --- encoder ---
    def _encoder(self, tokens, source_mask=None, training=None):
        """The LSTM model's encoder, its outputs `(batch, src, units)` in source order."""
        x, states = super()._encoder(tokens, source_mask, training)
        if self.reverse:
            x = reverse_padded(x, ops.not_equal(tokens, PAD_ID))  # back in source order
        return x, states

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
