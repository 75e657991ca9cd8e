"""Luong global-attention encoder-decoder (Luong et al. 2015), subclassed, with a step loop.

Twin of `luong_seq2seq_functional.py`: same constructor arguments, `get_config`, layer names and
order of sections, so `diff` shows only the difference between the two API styles.
"""

import keras
from keras import ops

from keras_nmt.layers.attention import LuongAttention
from keras_nmt.layers.reverse_padded_sequence import ReversePaddedSequence
from keras_nmt.models.constructor_config import ConstructorConfig
from keras_nmt.models.recurrent_parts import (
    build_by_one_step,
    encoder_lstm,
    final_states,
    reverse_padded_steps,
    step_dropout_masks,
    step_loop,
    teacher_forcing_coins,
)
from keras_nmt.special_ids import PAD_ID


@keras.saving.register_keras_serializable(package="keras_nmt")
class LuongSeq2SeqSubclassed(ConstructorConfig, keras.Model):
    """Stacked-LSTM encoder-decoder with Luong global attention, stepping through `LSTMCell`s.

    Luong, Pham and Manning (2015), "Effective Approaches to Attention-based Neural Machine
    Translation", §3.1. The encoder is the LSTM twin's (stacked, optionally reversed or
    bidirectional); its final `(h, c)` of each layer initialise the decoder layer of the same
    depth. At each step the top decoder output `h_t` attends over the encoder outputs `h̄_s`
    (eq. 7-8, score `attention_score`): `c_t = Σ_s a_t(s) h̄_s`, the attentional vector is
    `h̃_t = tanh(W_c [c_t; h_t])` (eq. 5) and the logits are `W_s h̃_t` (eq. 6).

    With `input_feeding` (§3.3), `h̃_{t-1}` is concatenated to the embedded input of the first
    decoder layer (`h̃_0 = 0`), so `decoder_lstm_0` reads `embedding_dim + units` features and
    its weights no longer fit the functional twin (which has no step loop and rejects it).

    The step loop (a `keras.ops.scan` over target positions) adds scheduled random teacher
    forcing (Bengio et al. 2015, "Scheduled Sampling for Sequence Prediction with Recurrent
    Neural Networks"): during training, at each step the decoder is fed the ground-truth previous
    token with probability `teacher_forcing_probability` (a variable that
    `keras_nmt.training.TeacherForcingSchedule` moves during `fit`), else its own previous
    argmax prediction. With probability 1 and no input feeding it computes exactly what its
    functional twin does. Without input feeding nothing of the attention flows back into the
    recurrence, so the loop runs only the decoder cells (attending inside it only to predict a
    token to feed) and all target positions attend at once after it, in larger matmuls.

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
        input_feeding: feed `h̃_{t-1}` into the first decoder layer (Luong §3.3).

    Call:
        inputs: `{"encoder_tokens": (batch, source_len) int32,
            "decoder_tokens": (batch, target_len) int32}`.
        returns: logits `(batch, target_len, target_vocab_size)`.

    Example:
        >>> model = LuongSeq2SeqSubclassed(source_vocab_size=40, target_vocab_size=20, units=64)
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
        super().__init__(name=name, **kwargs)
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
        self.decoder_lstms = [
            keras.layers.LSTMCell(units, name=f"decoder_lstm_{i}") for i in range(num_layers)
        ]
        self.decoder_dropout = keras.layers.Dropout(dropout, name="decoder_dropout")
        # `units=` lets `project_memory` run before the layer has seen a query.
        self.attention = LuongAttention(score=attention_score, units=units, name="attention")
        self.attentional_projection = keras.layers.Dense(
            units, activation="tanh", use_bias=False, name="attentional_projection"
        )
        self.output_projection = keras.layers.Dense(target_vocab_size, name="output_projection")
        self.teacher_forcing_probability = self.add_weight(
            shape=(), initializer="ones", trainable=False, name="teacher_forcing_probability"
        )
        self.seed_generator = keras.random.SeedGenerator()
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

    def build(self, input_shape=None):
        build_by_one_step(self, source_len=2)
        super().build(input_shape)

    # --- encoder ---
    def encode(self, encoder_tokens, training=None):
        """Encodes `(batch, source_len)` ids into the memory dict the decoder attends over.

        Returns:
            `{"source_mask": (batch, src) bool, "encoder_outputs": (batch, src, units),
            "keys": (batch, src, units) (the attention's memory projection, once per sentence),
            "encoder_states": [h_0, c_0, ...] each (batch, units)}`.
        """
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

    def _attend(self, query, memory):
        """`h_t` `(batch, [target_len,] units)` -> `h̃_t` of the same shape and the weights.

        The weights are `(batch, [target_len,] source_len)`.
        """
        context, weights = self.attention(
            query,
            memory["encoder_outputs"],
            memory_mask=memory["source_mask"],
            projected_memory=memory["keys"],
        )  # (batch, [tgt,] units), (batch, [tgt,] src)
        attentional = self.attentional_projection(ops.concatenate([context, query], axis=-1))
        return attentional, weights

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
        attentional, new_state, weights = self._step(token, state, memory)
        logits = self.output_projection(attentional)
        return ops.cast(logits, "float32"), new_state, ops.cast(weights, "float32")
