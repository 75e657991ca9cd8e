"""LSTM encoder-decoder (Sutskever et al. 2014) as a subclassed Keras model with a step loop.

Twin of `lstm_seq2seq_functional.py`: same constructor arguments, `get_config`, layer names and
order of sections, so `diff` shows only the difference between the two API styles.
"""

import keras
from keras import ops

from keras_nmt.layers.reverse_padded_sequence import ReversePaddedSequence
from keras_nmt.models.constructor_config import ConstructorConfig
from keras_nmt.models.recurrent_parts import (
    build_by_one_step,
    encoder_lstm,
    final_states,
    step_dropout_masks,
    step_loop,
    teacher_forcing_coins,
)
from keras_nmt.special_ids import PAD_ID


@keras.saving.register_keras_serializable(package="keras_nmt")
class LstmSeq2SeqSubclassed(ConstructorConfig, keras.Model):
    """Stacked-LSTM encoder-decoder whose decoder steps through `LSTMCell`s one token at a time.

    Sutskever, Vinyals and Le (2014), "Sequence to Sequence Learning with Neural Networks".
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
        >>> model = LstmSeq2SeqSubclassed(source_vocab_size=40, target_vocab_size=20, units=64)
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

    def build(self, input_shape=None):
        build_by_one_step(self, source_len=1)
        super().build(input_shape)

    # --- encoder ---
    def encode(self, encoder_tokens, training=None):
        """Encodes `(batch, source_len)` ids into the memory dict the decoder starts from."""
        source_mask = ops.not_equal(encoder_tokens, PAD_ID)
        tokens = self.reverse(encoder_tokens) if self.reverse else encoder_tokens
        x = self.source_embedding(tokens)  # (batch, src, emb)
        states = []
        for depth, lstm in enumerate(self.encoder_lstms):
            if depth:
                x = self.encoder_dropout(x, training=training)
            x, *layer_states = lstm(x, mask=source_mask, training=training)  # (batch, src, units)
            states.extend(final_states(layer_states, self.bidirectional))
        return {"source_mask": source_mask, "encoder_states": states}

    # --- decoder ---
    def _step(self, token, states, masks=None):
        """Token `(batch,)` and `[h_0, c_0, ...]` -> top output `(batch, units)` and new states.

        `masks` (training only): `(num_layers - 1, batch, units)` dropout masks of this step.
        """
        # A copy drops the Keras mask: a cell sees one token, there is nothing to mask.
        x = ops.copy(self.target_embedding(token))  # (batch, emb)
        new_states = []
        for depth, cell in enumerate(self.decoder_lstms):
            if depth and masks is not None:
                x = x * masks[depth - 1]  # decoder_dropout, its masks drawn before the loop
            x, (h, c) = cell(x, states[2 * depth : 2 * depth + 2])
            new_states.extend([h, c])
        return x, new_states

    # --- training graph ---
    def call(self, inputs, training=None):
        encoder_tokens, decoder_tokens = inputs["encoder_tokens"], inputs["decoder_tokens"]
        states = self.encode(encoder_tokens, training=training)["encoder_states"]
        feed_truth = teacher_forcing_coins(
            decoder_tokens, self.teacher_forcing_probability, self.seed_generator, training
        )
        batch = ops.shape(decoder_tokens)[0]

        outputs = step_loop(
            self._step,
            self.output_projection,
            decoder_tokens,
            feed_truth,
            states,
            ops.zeros((batch, self.units), dtype=self.compute_dtype),
            sample=bool(training) and self.teacher_forcing_probability < 1.0,
            dropout_masks=step_dropout_masks(
                self.decoder_dropout, decoder_tokens, self.num_layers - 1, self.units, training
            ),
        )  # (batch, tgt, units)
        logits = self.output_projection(self.decoder_dropout(outputs, training=training))
        # Logits in float32 even under a mixed-precision policy (a stable softmax).
        return ops.cast(logits, "float32")  # (batch, tgt, vocab)

    # --- inference contract (see CONTRIBUTING.md) ---
    def initial_state(self, memory, max_length=None):
        """The decoder starts from the encoder's final states: `{"states": [h_0, c_0, ...]}`."""
        del max_length  # no cache to size
        return {"states": list(memory["encoder_states"])}

    def decode_step(self, token, state, memory):
        """One step: token `(batch,)` -> logits `(batch, vocab)` float32, new state, None."""
        del memory  # no attention
        output, states = self._step(token, state["states"])
        logits = self.output_projection(output)
        return ops.cast(logits, "float32"), {"states": states}, None
