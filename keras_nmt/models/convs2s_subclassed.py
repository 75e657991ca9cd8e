"""ConvS2S (Gehring et al. 2017), subclassing API twin.

The model, its equations, initialisation and inference state are described once, in
`keras_nmt/models/convs2s.py`; the layers come from `convs2s_parts.make_layers`. The twin of
`convs2s_functional.py`: same constructor, `get_config` and layer names, so `diff` shows only
what the API style changes. Here the layers are attributes and the wiring runs in `call`,
`encode` and `decode_step` each time they are called; the padding masks are passed explicitly;
and training can feed the decoder its own predictions (scheduled sampling) through a step loop.
"""

import keras
from keras import ops

from keras_nmt.models.constructor_config import ConstructorConfig
from keras_nmt.models.convs2s import check_arguments
from keras_nmt.models.convs2s_parts import (
    keys_and_values,
    make_layers,
    mean_attention,
    zero_windows,
)
from keras_nmt.models.recurrent_parts import step_dropout_masks, step_loop, teacher_forcing_coins
from keras_nmt.special_ids import PAD_ID


@keras.saving.register_keras_serializable(package="keras_nmt")
class ConvS2SSubclassed(ConstructorConfig, keras.Model):
    """Convolutional encoder-decoder with multi-step attention, written as a `keras.Model`
    subclass with scheduled sampling.

    The model: `keras_nmt.models.convs2s` (embeddings with learned positions, gated
    convolutions with scaled residual sums, causal convolutions in the decoder, an attention in
    every decoder layer, weight normalization).

    Training call: `model({"encoder_tokens": (batch, src_len) int32, "decoder_tokens":
    (batch, tgt_len) int32}) -> logits (batch, tgt_len, target_vocab_size)` float32; padding id 0.

    Scheduled random teacher forcing (Bengio et al. 2015), as the recurrent subclassed twins:
    during training each target position is fed the ground-truth previous token with
    probability `teacher_forcing_probability` (a variable that
    `keras_nmt.training.TeacherForcingSchedule` moves during `fit`), else the model's own
    previous arg-max prediction. A prediction exists only once the position before it is
    computed, so then the decoder runs as a step loop (`recurrent_parts.step_loop` over
    `decode_step`'s one-column steps); while the probability is 1 every input is known at
    once and the decoder runs over the whole sequence, as the functional twin does, with the
    same numbers.

    Inference contract (`keras_nmt.decoding`): `encode(encoder_tokens)` -> memory
    `{"keys", "values", "source_mask"}`; `initial_state(memory, max_length)` -> `{"step",
    "window_{i}"}`; `decode_step(token, state, memory)` -> `(logits (batch, vocab) float32,
    state, attention (batch, src_len))`, the attention being the decoder layers' mean. Every
    layer's attention: `layer_attention(encoder_tokens, decoder_tokens)`.

    The defaults are the training defaults (`keras_nmt.models.configurations.OPTION_DEFAULTS`).

    Args:
        source_vocab_size: number of source token ids.
        target_vocab_size: number of target token ids.
        embedding_dim: width of the embeddings, the attention and the output layer.
        channels: width of every convolution layer.
        kernel_size: positions each convolution sees.
        num_layers: convolution layers in the encoder and in the decoder (each).
        dropout: dropout rate (embeddings, convolution inputs, before the output projection).
        max_length: the longest source, target or decoded sequence (rows of the position
            tables).
        **kwargs: base `Model` arguments (`name`, `trainable`).

    Example:
        >>> model = ConvS2SSubclassed(20, 20, embedding_dim=16, channels=32, num_layers=2)
        >>> logits = model({"encoder_tokens": src, "decoder_tokens": tgt_in})  # (b, t, 20)
        >>> memory = model.encode(src)
        >>> state = model.initial_state(memory, max_length=10)
        >>> logits, state, attention = model.decode_step(start_tokens, state, memory)

    References:
        Gehring et al., 2017, "Convolutional Sequence to Sequence Learning",
        https://arxiv.org/abs/1705.03122; Bengio et al., 2015, "Scheduled Sampling for
        Sequence Prediction with Recurrent Neural Networks", https://arxiv.org/abs/1506.03099
    """

    has_attention = True
    model_name = "convs2s"

    def __init__(
        self,
        source_vocab_size,
        target_vocab_size,
        embedding_dim=128,
        channels=256,
        kernel_size=3,
        num_layers=1,
        dropout=0.0,
        max_length=100,
        **kwargs,
    ):
        check_arguments(kernel_size, num_layers)
        kwargs.setdefault("name", "convs2s")
        super().__init__(**kwargs)
        self.source_vocab_size = source_vocab_size
        self.target_vocab_size = target_vocab_size
        self.embedding_dim = embedding_dim
        self.channels = channels
        self.kernel_size = kernel_size
        self.num_layers = num_layers
        self.dropout = dropout
        self.max_length = max_length

        # ---- Layers ----
        layers = make_layers(source_vocab_size, target_vocab_size, embedding_dim, channels,
                             kernel_size, num_layers, dropout, max_length)
        for name, layer in vars(layers).items():
            setattr(self, name, layer)
        self.teacher_forcing_probability = self.add_weight(
            shape=(), initializer="ones", trainable=False, name="teacher_forcing_probability"
        )
        self.seed_generator = keras.random.SeedGenerator()

    def build(self, inputs_shape=None):
        # Every weight is made here, eagerly, by one whole-sequence pass: under JAX a weight
        # first made inside the step loop's scan would be a tracer of it.
        tokens = ops.ones((1, 2), dtype="int32")
        self._decode(tokens, self._encode(tokens))
        self.built = True

    def project(self, h):
        # (batch, ..., channels) -> (batch, ..., target_vocab_size) float32
        hidden = self.output_dropout(self.output_hidden(h))
        return ops.cast(self.output_projection(hidden), "float32")

    # ---- Training call ----
    def call(self, inputs, training=None):
        encoder_tokens = ops.cast(inputs["encoder_tokens"], "int32")
        decoder_tokens = ops.cast(inputs["decoder_tokens"], "int32")
        memory = self._encode(encoder_tokens, training=training)
        logits, _ = self._decode(decoder_tokens, memory, training=training)
        if not training:
            return logits
        # Drawn here, outside the branches and the loop (JAX draws nothing inside them).
        feed_truth = teacher_forcing_coins(
            decoder_tokens, self.teacher_forcing_probability, self.seed_generator, training)
        # The embedding's, each layer's input's and the output layer's, each cut to its width.
        width = max(self.embedding_dim, self.channels)
        masks = step_dropout_masks(self.target_dropout, decoder_tokens, self.num_layers + 2,
                                   width, training)
        sample = self.teacher_forcing_probability < 1.0
        return ops.cond(sample,
                        lambda: self._sampled_logits(decoder_tokens, feed_truth, memory, masks,
                                                     sample),
                        lambda: logits)

    def _encode(self, encoder_tokens, training=None):
        source_mask = ops.not_equal(encoder_tokens, PAD_ID)  # (batch, src_len)
        e = self.source_dropout(self.source_embedding(encoder_tokens), training=training)
        x = self.encoder_input(e)  # (batch, src_len, channels)
        for block in self.encoder_blocks:
            x = block(x, mask=source_mask, training=training)
        keys, values = keys_and_values(self.encoder_output(x), e, source_mask, self.num_layers)
        return {"keys": keys, "values": values, "source_mask": source_mask}

    def _decode(self, decoder_tokens, memory, training=None):
        """The whole target sequence at once -> logits, and every layer's attention
        `(batch, num_layers, tgt_len, src_len)`."""
        g = self.target_dropout(self.target_embedding(decoder_tokens), training=training)
        y = self.decoder_input(g)  # (batch, tgt_len, channels)
        weights = []
        for block in self.decoder_blocks:
            y, layer_weights = block(y, g, memory["keys"], memory["values"],
                                     memory["source_mask"], training=training)
            weights.append(layer_weights)  # (batch, tgt_len, src_len)
        return self.project(y), ops.cast(ops.stack(weights, axis=1), "float32")

    def _step(self, token, state, memory, masks=None):
        """One position: -> (the output layer's input `(batch, embedding_dim)`, new state,
        each layer's attention `(batch, 1, src_len)`). `masks`: `(num_layers + 2, batch,
        width)` dropout masks (the embedding's, then each layer's input's; the last is the
        output layer's, applied after the loop), or None."""
        g = self.target_embedding(ops.expand_dims(token, 1), start_index=state["step"])
        if masks is not None:
            g = g * masks[0][:, None, : self.embedding_dim]
        y = self.decoder_input(g)  # (batch, 1, channels)
        new_state, weights = {"step": state["step"] + 1}, []
        for i, block in enumerate(self.decoder_blocks):
            y, layer_weights, new_state[f"window_{i}"] = block.step(
                y, state[f"window_{i}"], g, memory["keys"], memory["values"],
                memory["source_mask"],
                dropout_mask=None if masks is None else masks[i + 1][:, None, : self.channels])
            weights.append(layer_weights)
        return self.output_hidden(y)[:, 0], new_state, weights

    def _sampled_logits(self, decoder_tokens, feed_truth, memory, masks, sample):
        """The decoder as a step loop, fed the truth where `feed_truth`, else its own arg-max.

        Every dropout mask comes in `masks` (drawn before the branch): no layer draws here."""
        batch = ops.shape(decoder_tokens)[0]

        def step(token, state, step_masks):
            hidden, state, _ = self._step(token, state, memory, step_masks)
            return hidden, state

        hidden = step_loop(
            step,
            self.output_projection,
            decoder_tokens,
            feed_truth,
            self.initial_state(memory, None),
            ops.zeros((batch, self.embedding_dim), dtype=self.compute_dtype),
            sample=sample,
            dropout_masks=masks,
        )  # (batch, tgt_len, embedding_dim)
        if masks is not None:  # the output layer's: (tgt_len, batch, width) -> like `hidden`
            hidden = hidden * ops.transpose(masks[:, -1, :, : self.embedding_dim], (1, 0, 2))
        return ops.cast(self.output_projection(hidden), "float32")

    # ---- Inference contract ----
    def encode(self, encoder_tokens):
        """Runs the encoder once per sentence: `(batch, src_len)` int32 ids padded with 0 ->
        the memory `{"keys", "values", "source_mask"}` (`convs2s.py`)."""
        return self._encode(ops.convert_to_tensor(encoder_tokens, dtype="int32"), training=False)

    def initial_state(self, memory, max_length):
        """Position 0 and zero windows (the causal border) for every row.

        Args:
            memory: the dict returned by `encode`.
            max_length: the decoding steps to come (at most the model's `max_length`: the
                position table's rows); the windows do not grow with it.

        Returns:
            `{"step": (batch,) int32, "window_{i}": (batch, kernel_size - 1, channels)}`.
        """
        if isinstance(max_length, int) and max_length > self.max_length:
            raise ValueError(f"max_length={max_length} exceeds the model's {self.max_length}")
        batch = ops.shape(memory["source_mask"])[0]
        return {"step": ops.zeros((batch,), dtype="int32"),
                **zero_windows(batch, self.num_layers, self.kernel_size, self.channels,
                               self.compute_dtype)}

    def decode_step(self, token, state, memory):
        """Feeds one target token per row (at position `state["step"]`), predicts the next.

        Returns:
            `(logits (batch, target_vocab_size) float32, new state, attention (batch, src_len))`.
        """
        token = ops.convert_to_tensor(token, dtype="int32")
        hidden, new_state, weights = self._step(token, state, memory)
        logits = ops.cast(self.output_projection(hidden), "float32")
        return logits, {key: new_state[key] for key in state}, mean_attention(weights)

    def layer_attention(self, encoder_tokens, decoder_tokens):
        """Every decoder layer's attention over the source, teacher-forced on `decoder_tokens`
        (`[START] + y`): float32 `(batch, num_layers, tgt_len, src_len)`."""
        encoder_tokens = ops.convert_to_tensor(encoder_tokens, dtype="int32")
        decoder_tokens = ops.convert_to_tensor(decoder_tokens, dtype="int32")
        return self._decode(decoder_tokens, self._encode(encoder_tokens))[1]
