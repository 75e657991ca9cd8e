"""`FusedAdam`: Keras' Adam, updating each weight with TensorFlow's fused Adam kernel."""

import keras


@keras.saving.register_keras_serializable(package="keras_nmt")
class FusedAdam(keras.optimizers.Adam):
    """`keras.optimizers.Adam` whose update is one fused kernel per weight on TensorFlow.

    Keras' Adam updates a weight with about a dozen element-wise ops (moments, square root,
    division, assignments), each a pass over the weight's memory; TensorFlow's
    `ResourceApplyAdam` kernel reads the weight, both moments and the gradient once and writes
    them back once. The rule is the same (Kingma & Ba 2015, Algorithm 1 with the "epsilon hat"
    of its §2): with `t` the 1-based step,

        m = m + (1 - beta_1) · (g - m)
        v = v + (1 - beta_2) · (g² - v)
        w = w - lr · sqrt(1 - beta_2^t) / (1 - beta_1^t) · m / (sqrt(v) + epsilon)

    so for dense gradients the weights equal Keras' Adam's within float32 rounding. An
    embedding's gradient (`tf.IndexedSlices`, a slice per token occurrence) is summed into a
    dense gradient first, as under JAX, where gradients are dense; Keras' own TensorFlow update
    squares the slices before adding up a repeated row's (`v` gains the sum of squares, not the
    square of the sum). A training step is shorter (docs/decisions.md). Everything else
    (gradient clipping, schedules, loss scaling, `tf.distribute`, the variables a checkpoint
    holds) is Keras' Adam's. `amsgrad` and backends other than TensorFlow use Keras' update.

    Args:
        Those of `keras.optimizers.Adam`.

    Example:
        >>> optimizer = FusedAdam(learning_rate=1e-3, clipnorm=1.0)
        >>> model.compile(optimizer=optimizer, loss="sparse_categorical_crossentropy")

    References:
        Kingma & Ba, 2015, "Adam: A Method for Stochastic Optimization",
        https://arxiv.org/abs/1412.6980
    """

    def update_step(self, gradient, variable, learning_rate):
        if self.amsgrad or keras.backend.backend() != "tensorflow":
            super().update_step(gradient, variable, learning_rate)
            return
        # Imported here: `keras_nmt.training` registers this class for `.keras` files and must
        # load without TensorFlow (JAX machines), where this line is never reached.
        import tensorflow as tf

        index = self._get_variable_index(variable)
        dtype = variable.dtype
        step = tf.cast(self.iterations + 1, dtype)
        beta_1 = tf.cast(self.beta_1, dtype)
        beta_2 = tf.cast(self.beta_2, dtype)
        # Embedding gradients arrive as IndexedSlices: summed into the dense gradient the
        # kernel takes (the class docstring says how Keras' own update differs).
        gradient = tf.cast(tf.convert_to_tensor(gradient), dtype)
        # `variable` is a tf.Variable (under tf.distribute, this replica's copy); the moments
        # are Keras variables, whose `.value` resolves to the same replica inside the update.
        tf.raw_ops.ResourceApplyAdam(
            var=variable.handle, m=self._momentums[index].value.handle,
            v=self._velocities[index].value.handle, beta1_power=tf.pow(beta_1, step),
            beta2_power=tf.pow(beta_2, step), lr=tf.cast(learning_rate, dtype), beta1=beta_1,
            beta2=beta_2, epsilon=tf.cast(self.epsilon, dtype), grad=gradient)
