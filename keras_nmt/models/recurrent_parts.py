"""Pieces shared by the recurrent models (LSTM, Luong, Bahdanau) and the step loops of their
subclassed twins (ConvS2S's too)."""

import keras
from keras import ops


def cudnn_setting(backend=None, compute_dtype=None):
    """The `use_cudnn` argument of our `LSTM` layers: `"auto"`, or False for bfloat16 under JAX.

    Keras' JAX backend sends an unmasked LSTM to cuDNN on a GPU, whose JAX lowering has no
    bfloat16 (`jaxlib/gpu_rnn.py`: "Unknown output type bfloat16"), so under JAX with a bfloat16
    compute dtype the layer runs Keras' scan loop instead. TensorFlow keeps `"auto"` (its cuDNN
    path handles bfloat16 or falls back by itself).

    Args:
        backend: the Keras backend name; default the current one.
        compute_dtype: the layers' compute dtype; default the global dtype policy's.
    """
    backend = backend or keras.backend.backend()
    compute_dtype = compute_dtype or keras.config.dtype_policy().compute_dtype
    return False if backend == "jax" and compute_dtype == "bfloat16" else "auto"


def sequence_lstm(units, name=None):
    """An `LSTM` returning its output sequence and final states, with `cudnn_setting()`."""
    return keras.layers.LSTM(
        units, return_sequences=True, return_state=True, use_cudnn=cudnn_setting(), name=name
    )


def encoder_lstm(units, bidirectional, name):
    """One encoder layer returning its output sequence and final states.

    With `bidirectional`, each direction has `units // 2` (OpenNMT's "brnn") so the concatenated
    states have the decoder's width.
    """
    if bidirectional:
        if units % 2:
            raise ValueError(f"a bidirectional encoder needs an even `units`, got {units}")
        return keras.layers.Bidirectional(sequence_lstm(units // 2), name=name)
    return sequence_lstm(units, name=name)


def final_states(layer_states, bidirectional):
    """`[h, c]` of one encoder layer (a bidirectional one's `[h_fw, c_fw, h_bw, c_bw]` joined)."""
    if not bidirectional:
        return list(layer_states)
    h_fw, c_fw, h_bw, c_bw = layer_states
    return [ops.concatenate([h_fw, h_bw], axis=-1), ops.concatenate([c_fw, c_bw], axis=-1)]


def attention_memory(source_mask, encoder_outputs, keys, encoder_states):
    """The memory `encode` returns in the recurrent attention models (Luong, Bahdanau): the
    encoder outputs, the attention's `keys` (`project_memory`, once per sentence) and the
    decoder's initial states. Copies drop the Keras masks: `source_mask` carries the padding."""
    return {"source_mask": source_mask, "encoder_outputs": ops.copy(encoder_outputs),
            "keys": ops.copy(keys), "encoder_states": encoder_states}


def attention_step_inputs(token, state, memory):
    """A functional attention twin's `decoder_step_model` inputs: `[token (batch, 1), encoder
    outputs, keys, source mask, *states]`."""
    return [ops.expand_dims(token, 1), memory["encoder_outputs"], memory["keys"],
            memory["source_mask"], *state["states"]]


def step_dropout_masks(dropout_layer, decoder_tokens, count, width, training):
    """Dropout masks for the inner layers of a step loop, drawn once before the loop.

    Drawing inside the loop would take a new seed from the layer's `SeedGenerator` in the traced
    `ops.scan` body, which JAX rejects (`UnexpectedTracerError`). The masks are what
    `dropout_layer` makes of ones: 0 or `1 / (1 - rate)`, a fresh draw per step, layer, example
    and unit, exactly the distribution of calling the layer at each step.

    Args:
        dropout_layer: the `Dropout` layer applied between the decoder layers.
        decoder_tokens: `(batch, target_len)`, giving the number of steps and the batch size.
        count: how many masks each step needs (the decoder layers above the first).
        width: the masked vectors' size (the units).
        training: whether dropout applies.

    Returns:
        `(target_len, count, batch, width)` in the layer's compute dtype, or None when there is
        nothing to drop.
    """
    if not (training and count and dropout_layer.rate > 0):
        return None
    batch, target_len = ops.shape(decoder_tokens)[0], ops.shape(decoder_tokens)[1]
    ones = ops.ones((target_len, count, batch, width), dtype=dropout_layer.compute_dtype)
    return dropout_layer(ones, training=True)


def teacher_forcing_coins(decoder_tokens, probability, seed_generator, training):
    """Per-position choice of scheduled sampling (Bengio et al. 2015), `(batch, target_len)` bool.

    True where the decoder is fed the ground-truth previous token, False where it is fed its own
    previous prediction. Outside training it is all True: evaluation stays teacher-forced.
    """
    if not training:
        return ops.ones_like(decoder_tokens, dtype="bool")
    draws = keras.random.uniform(ops.shape(decoder_tokens), seed=seed_generator)
    return ops.less(draws, probability)


def step_loop(
    step, project, decoder_tokens, feed_truth, states, initial_output, sample, dropout_masks=None
):
    """Runs a decoder one target position at a time, feeding truth or its own predictions.

    Args:
        step: `(token (batch,), states, masks) -> (output (batch, units), states)`, one decoder
            step; `masks` is this step's `(count, batch, width)` slice of `dropout_masks`, or
            None.
        project: `output -> logits (batch, vocab)`, used for the model's own predictions.
        decoder_tokens: ground-truth decoder inputs `(batch, target_len)`, START first.
        feed_truth: `(batch, target_len)` bool, where to feed the ground truth.
        states: the initial recurrent state (any nested structure of tensors).
        initial_output: `(batch, units)` zeros, giving the output's shape and dtype.
        sample: whether predictions may be fed at all (a bool tensor or Python bool); when False
            the projection is skipped inside the loop, so teacher forcing costs no extra matmul.
        dropout_masks: `(target_len, count, batch, width)` from `step_dropout_masks`, or None.

    Returns:
        The top decoder outputs `(batch, target_len, units)`; the caller projects them to logits
        in one matmul outside the loop.
    """

    def predict(output):
        return ops.cast(ops.argmax(project(output), axis=-1), decoder_tokens.dtype)

    def body(carry, choice):
        # choice (batch,): the ground-truth token to feed, or -1 for the model's own prediction.
        token = ops.where(ops.greater_equal(choice, 0), choice, carry["prediction"])
        position = carry["position"]
        masks = None if dropout_masks is None else ops.take(dropout_masks, position, axis=0)
        output, new_states = step(token, carry["states"], masks)
        if isinstance(sample, bool) and not sample:
            prediction = carry["prediction"]
        else:
            prediction = ops.cond(sample, lambda: predict(output), lambda: carry["prediction"])
        carry = {
            "states": new_states,
            "prediction": prediction,
            "output": output,
            "position": position + 1,
        }
        # Keras' TensorFlow scan wants per-step outputs shaped like the carry: emit the carry.
        return carry, carry

    initial = {
        "states": states,
        "prediction": decoder_tokens[:, 0],
        "output": initial_output,
        "position": ops.convert_to_tensor(0, dtype="int32"),
    }
    # One scanned input, not two: Keras' TensorFlow scan fails on several inputs of unknown length.
    choices = ops.where(feed_truth, decoder_tokens, ops.full_like(decoder_tokens, -1))
    # Scan over time: inputs (target_len, batch), outputs (target_len, batch, units).
    _, per_step = ops.scan(body, initial, ops.transpose(choices))
    return ops.transpose(per_step["output"], (1, 0, 2))


class ScheduledSamplingModel(keras.Model):
    """The `keras.Model` of a subclassed twin whose decoder may be fed its own predictions.

    Scheduled sampling (Bengio et al. 2015, "Scheduled Sampling for Sequence Prediction with
    Recurrent Neural Networks"): during training, at each step the decoder is fed the
    ground-truth previous token with probability `teacher_forcing_probability` (a variable that
    `keras_nmt.training.teacher_forcing_schedule.TeacherForcingSchedule` moves during `fit`),
    else its own previous argmax prediction. With probability 1 a twin computes exactly what its
    functional twin does.

    The subclassed twins of the recurrent models and of ConvS2S are `<Stem>Subclassed(<Stem>,
    ScheduledSamplingModel)`: the shared constructor (`<name>/model.py`) ends in `_wire` here.
    """

    def _wire(self, **kwargs):
        keras.Model.__init__(self, **kwargs)
        self.teacher_forcing_probability = self.add_weight(
            shape=(), initializer="ones", trainable=False, name="teacher_forcing_probability"
        )
        self.seed_generator = keras.random.SeedGenerator()

    def build(self, input_shape=None):
        # Every weight is made here by encoding a dummy batch and one decoder step, eagerly and
        # outside any loop: under JAX, a weight first made inside the `ops.scan` body of the
        # training call would be a tracer of that scan (`UnexpectedTracerError`). Two source
        # positions: with one, Keras warns that an attention softmax runs over a single element.
        tokens = ops.ones((1, 2), dtype="int32")
        memory = self.encode(tokens)
        self.decode_step(tokens[:, 0], self.initial_state(memory, max_length=1), memory)
        super().build(input_shape)

    def _step_loop(self, step, project, decoder_tokens, states, training, dropout_masks=None):
        """`step_loop` (above) from `states` over `decoder_tokens`, fed the ground truth with
        probability `teacher_forcing_probability` while training, always otherwise.

        Returns:
            The top decoder outputs `(batch, target_len, units)`.
        """
        feed_truth = teacher_forcing_coins(
            decoder_tokens, self.teacher_forcing_probability, self.seed_generator, training
        )
        batch = ops.shape(decoder_tokens)[0]
        return step_loop(
            step,
            project,
            decoder_tokens,
            feed_truth,
            states,
            ops.zeros((batch, self.units), dtype=self.compute_dtype),
            sample=bool(training) and self.teacher_forcing_probability < 1.0,
            dropout_masks=dropout_masks,
        )

