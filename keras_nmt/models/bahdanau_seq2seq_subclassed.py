"""Bahdanau attention encoder-decoder (Bahdanau et al. 2014) as a subclassed model with a step loop.

Twin of `bahdanau_seq2seq_functional.py`: same constructor arguments, `get_config`, layer names
and order of sections, so `diff` shows only the difference between the two API styles.
"""

import keras
from keras import ops

from keras_nmt.layers.attention import BahdanauAttention
from keras_nmt.models.constructor_config import ConstructorConfig
from keras_nmt.models.recurrent_parts import (
    build_by_one_step,
    encoder_lstm,
    final_states,
    step_loop,
    teacher_forcing_coins,
)
from keras_nmt.special_ids import PAD_ID


@keras.saving.register_keras_serializable(package="keras_nmt")
class BahdanauSeq2SeqSubclassed(ConstructorConfig, keras.Model):
    """Bidirectional-LSTM encoder and additive-attention LSTM decoder, stepping one token a time.

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

    The step loop (a `keras.ops.scan` over target positions) adds scheduled random teacher
    forcing (Bengio et al. 2015, "Scheduled Sampling for Sequence Prediction with Recurrent
    Neural Networks"): during training, at each step the decoder is fed the ground-truth previous
    token with probability `teacher_forcing_probability` (a variable that
    `keras_nmt.training.TeacherForcingSchedule` moves during `fit`), else its own previous
    argmax prediction. With probability 1 it computes exactly what its functional twin does.

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
        >>> model = BahdanauSeq2SeqSubclassed(source_vocab_size=40, target_vocab_size=20, units=64)
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
        super().__init__(name=name, **kwargs)
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
        self.teacher_forcing_probability = self.add_weight(
            shape=(), initializer="ones", trainable=False, name="teacher_forcing_probability"
        )
        self.seed_generator = keras.random.SeedGenerator()
        self.source_vocab_size = source_vocab_size
        self.target_vocab_size = target_vocab_size
        self.embedding_dim = embedding_dim
        self.units = units
        self.dropout = dropout
        self.attention_units = attention_units
        self.deep_output = deep_output

    def build(self, input_shape=None):
        build_by_one_step(self, source_len=2)
        super().build(input_shape)

    # --- encoder ---
    def encode(self, encoder_tokens, training=None):
        """Encodes `(batch, source_len)` ids into the memory dict the decoder attends over.

        Returns:
            `{"source_mask": (batch, src) bool, "encoder_outputs": (batch, src, 2 * units)
            (the annotations), "keys": (batch, src, attention_units) (`U h_j`, once per
            sentence), "encoder_states": [h_0, c_0] (the decoder's initial state, through
            the bridges) each (batch, units)}`.
        """
        source_mask = ops.not_equal(encoder_tokens, PAD_ID)  # (batch, src)
        x = self.source_embedding(encoder_tokens)  # (batch, src, emb)
        x, *layer_states = self.encoder(x, mask=source_mask, training=training)
        # x: (batch, src, 2 * units)
        h, c = final_states(layer_states, bidirectional=True)  # (batch, 2 * units) each
        # A copy drops the Keras mask: `source_mask` carries the padding explicitly.
        annotations = ops.copy(self.encoder_dropout(x, training=training))
        return {
            "source_mask": source_mask,
            "encoder_outputs": annotations,
            "keys": self.attention.project_memory(annotations),
            "encoder_states": [self.bridge_h(h), self.bridge_c(c)],  # (batch, units) each
        }

    # --- decoder ---
    def _step(self, token, states, memory):
        """Token `(batch,)`, `[h, c]` and memory -> `t_t` `(batch, units)`, new states, weights.

        The weights are `(batch, source_len)`.
        """
        # A copy drops the Keras mask: a cell sees one token, there is nothing to mask.
        embedded = ops.copy(self.target_embedding(token))  # (batch, emb)
        # The query is the previous state s_{t-1}.
        context, weights = self.attention(
            states[0],
            memory["encoder_outputs"],
            memory_mask=memory["source_mask"],
            projected_memory=memory["keys"],
        )  # (batch, 2 * units), (batch, src)
        output, new_states = self.decoder_cell(
            ops.concatenate([embedded, context], axis=-1), states
        )  # (batch, units)
        features = [output, context, embedded] if self.deep_output else [output, context]
        hidden = self.output_hidden(ops.concatenate(features, axis=-1))  # (batch, units)
        return hidden, list(new_states), weights

    # --- training graph ---
    def call(self, inputs, training=None):
        encoder_tokens, decoder_tokens = inputs["encoder_tokens"], inputs["decoder_tokens"]
        memory = self.encode(encoder_tokens, training=training)
        feed_truth = teacher_forcing_coins(
            decoder_tokens, self.teacher_forcing_probability, self.seed_generator, training
        )
        batch = ops.shape(decoder_tokens)[0]

        def step(token, states, masks):
            del masks  # no dropout inside the loop
            hidden, states, _ = self._step(token, states, memory)
            return hidden, states

        outputs = step_loop(
            step,
            self.output_projection,
            decoder_tokens,
            feed_truth,
            list(memory["encoder_states"]),
            ops.zeros((batch, self.units), dtype=self.compute_dtype),
            sample=bool(training) and self.teacher_forcing_probability < 1.0,
        )  # (batch, tgt, units)
        logits = self.output_projection(self.decoder_dropout(outputs, training=training))
        # Logits in float32 even under a mixed-precision policy (a stable softmax).
        return ops.cast(logits, "float32")  # (batch, tgt, vocab)

    # --- inference contract (see CONTRIBUTING.md) ---
    def initial_state(self, memory, max_length=None):
        """The decoder starts from the bridged encoder states: `{"states": [h_0, c_0]}`."""
        del max_length  # no cache to size
        return {"states": list(memory["encoder_states"])}

    def decode_step(self, token, state, memory):
        """One step: token `(batch,)` -> logits `(batch, vocab)` float32, state, attention.

        The attention is `(batch, src)` over source positions (0 at padding, rows sum to 1).
        """
        hidden, states, weights = self._step(token, state["states"], memory)
        logits = self.output_projection(hidden)
        return ops.cast(logits, "float32"), {"states": states}, ops.cast(weights, "float32")
