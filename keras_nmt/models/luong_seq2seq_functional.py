"""Luong global-attention encoder-decoder (Luong et al. 2015) in the Keras functional API.

Twin of `luong_seq2seq_subclassed.py`: same constructor arguments, `get_config`, layer names and
order of sections, so `diff` shows only the difference between the two API styles.
"""

import keras
from keras import ops

from keras_nmt.layers.attention import LuongAttention
from keras_nmt.layers.reverse_padded_sequence import ReversePaddedSequence
from keras_nmt.models.constructor_config import ConstructorConfig
from keras_nmt.models.recurrent_parts import (
    encoder_lstm,
    final_states,
    reverse_padded_steps,
    sequence_lstm,
)
from keras_nmt.special_ids import PAD_ID


@keras.saving.register_keras_serializable(package="keras_nmt")
class LuongSeq2SeqFunctional(ConstructorConfig, keras.Model):
    """Stacked-LSTM encoder-decoder with Luong global attention, as a static functional graph.

    Luong, Pham and Manning (2015), "Effective Approaches to Attention-based Neural Machine
    Translation", §3.1. The encoder is the LSTM twin's (stacked, optionally reversed or
    bidirectional); its final `(h, c)` of each layer initialise the decoder layer of the same
    depth. The decoder LSTM stack reads the whole target (teacher forcing, `mask_zero` masking);
    then, in parallel over target positions, the top output `h_t` attends over the encoder
    outputs `h̄_s` (eq. 7-8, score `attention_score`): `c_t = Σ_s a_t(s) h̄_s`, the attentional
    vector is `h̃_t = tanh(W_c [c_t; h_t])` (eq. 5) and the logits are `W_s h̃_t` (eq. 6).

    Input feeding (§3.3) feeds `h̃_{t-1}` back into the decoder, which needs a step loop: this
    twin rejects `input_feeding=True`; use `LuongSeq2SeqSubclassed`.

    From the same layer objects (shared weights) the constructor also builds the inference
    models: `encoder_model` (source ids -> encoder outputs, attention keys, states) and
    `decoder_step_model` (one token + memory + states -> logits, attention, h̃, new states).

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
        input_feeding: must be False here (see above).

    Call:
        inputs: `{"encoder_tokens": (batch, source_len) int32,
            "decoder_tokens": (batch, target_len) int32}`.
        returns: logits `(batch, target_len, target_vocab_size)`.

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
        if input_feeding:
            raise ValueError(
                "input feeding (Luong et al. 2015, §3.3) feeds h̃_{t-1} into the next step and "
                "needs a step loop; use LuongSeq2SeqSubclassed (--api subclassed)"
            )
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
        # `units=` lets `project_memory` run before the layer has seen a query.
        attention = LuongAttention(score=attention_score, units=units, name="attention")
        attentional_projection = keras.layers.Dense(
            units, activation="tanh", use_bias=False, name="attentional_projection"
        )
        output_projection = keras.layers.Dense(target_vocab_size, name="output_projection")

        # --- encoder ---
        def encode(tokens):
            source_mask = ops.not_equal(tokens, PAD_ID)  # (batch, src)
            x = source_embedding(reverse(tokens) if reverse else tokens)  # (batch, src, emb)
            states = []
            for depth, lstm in enumerate(encoder_lstms):
                if depth:
                    x = encoder_dropout(x)
                x, *layer_states = lstm(x)  # x: (batch, src, units)
                states.extend(final_states(layer_states, bidirectional))
            if reverse:
                x = reverse_padded_steps(x, source_mask)  # back in source order
            return x, states  # (batch, src, units), [h_0, c_0, h_1, c_1, ...] each (batch, units)

        # --- decoder ---
        def decode(tokens, states, encoder_outputs, source_mask, keys=None):
            x = target_embedding(tokens)  # (batch, tgt, emb)
            new_states = []
            for depth, lstm in enumerate(decoder_lstms):
                if depth:
                    x = decoder_dropout(x)
                x, h, c = lstm(x, initial_state=states[2 * depth : 2 * depth + 2])
                new_states.extend([h, c])
            # x = h_t: (batch, tgt, units); all target positions attend at once.
            context, weights = attention(
                x, encoder_outputs, memory_mask=source_mask, projected_memory=keys
            )  # (batch, tgt, units), (batch, tgt, src)
            attentional = attentional_projection(ops.concatenate([context, x], axis=-1))
            logits = output_projection(decoder_dropout(attentional))  # (batch, tgt, vocab)
            # Logits in float32 even under a mixed-precision policy (a stable softmax).
            logits = ops.cast(logits, "float32")
            return logits, weights, attentional, new_states

        # --- training graph ---
        encoder_tokens = keras.Input((None,), dtype="int32", name="encoder_tokens")
        decoder_tokens = keras.Input((None,), dtype="int32", name="decoder_tokens")
        encoder_outputs, encoder_states = encode(encoder_tokens)
        # The keys are computed inside the attention call here (once for all target positions):
        # a `project_memory` node would add the inner Dense as a layer of this graph.
        logits, _, _, _ = decode(
            decoder_tokens, encoder_states, encoder_outputs, ops.not_equal(encoder_tokens, PAD_ID)
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
        self.num_layers = num_layers
        self.dropout = dropout
        self.reverse_source = reverse_source
        self.bidirectional = bidirectional
        self.attention_score = attention_score
        self.input_feeding = input_feeding

        # --- inference models, built from the same layer objects ---
        source = keras.Input((None,), dtype="int32", name="encoder_tokens")
        source_outputs, source_states = encode(source)
        self.encoder_model = keras.Model(
            source,
            [source_outputs, attention.project_memory(source_outputs), *source_states],
            name="encoder_model",
        )
        token = keras.Input((1,), dtype="int32", name="token")
        memory_outputs = keras.Input((None, units), name="encoder_outputs")
        memory_keys = keras.Input((None, units), name="keys")
        memory_mask = keras.Input((None,), dtype="bool", name="source_mask")
        step_states = [
            keras.Input((units,), name=f"state_{kind}_{depth}")
            for depth in range(num_layers)
            for kind in ("h", "c")
        ]
        step_logits, step_weights, step_attentional, step_new_states = decode(
            token, step_states, memory_outputs, memory_mask, keys=memory_keys
        )
        self.decoder_step_model = keras.Model(
            [token, memory_outputs, memory_keys, memory_mask, *step_states],
            [step_logits, step_weights, step_attentional, *step_new_states],
            name="decoder_step_model",
        )

    # --- inference contract (see CONTRIBUTING.md) ---
    def encode(self, encoder_tokens):
        """Encodes `(batch, source_len)` ids into the memory dict the decoder attends over.

        Returns:
            `{"source_mask": (batch, src) bool, "encoder_outputs": (batch, src, units),
            "keys": (batch, src, units) (the attention's memory projection, once per sentence),
            "encoder_states": [h_0, c_0, ...] each (batch, units)}`.
        """
        encoder_outputs, keys, *states = self.encoder_model(encoder_tokens)
        # Copies drop the Keras masks: `source_mask` carries the padding explicitly.
        return {
            "source_mask": ops.not_equal(encoder_tokens, PAD_ID),
            "encoder_outputs": ops.copy(encoder_outputs),
            "keys": ops.copy(keys),
            "encoder_states": states,
        }

    def initial_state(self, memory, max_length=None):
        """`{"states": [h_0, c_0, ...] (the encoder's), "attentional": h̃_0 = 0 (batch, units)}`.

        `"attentional"` is `h̃_{t-1}`, fed back with input feeding; both twins carry it.
        """
        del max_length  # no cache to size
        states = list(memory["encoder_states"])
        return {"states": states, "attentional": ops.zeros_like(states[0])}

    def decode_step(self, token, state, memory):
        """One step: token `(batch,)` -> logits `(batch, vocab)` float32, state, attention.

        The attention is `(batch, src)` over source positions (0 at padding, rows sum to 1).
        """
        logits, weights, attentional, *states = self.decoder_step_model(
            [
                ops.expand_dims(token, 1),
                memory["encoder_outputs"],
                memory["keys"],
                memory["source_mask"],
                *state["states"],
            ]
        )
        new_state = {"states": states, "attentional": attentional[:, 0]}
        return logits[:, 0], new_state, ops.cast(weights[:, 0], "float32")
