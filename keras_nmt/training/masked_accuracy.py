"""Token accuracy over non-padding positions."""

import keras
from keras import ops

from keras_nmt.special_ids import PAD_ID


@keras.saving.register_keras_serializable(package="keras_nmt")
class MaskedAccuracy(keras.metrics.Metric):
    """Fraction of non-padding target tokens whose argmax prediction is right.

    Accumulated as total correct over total real tokens across batches (not a mean of batch
    means), so batches with more padding do not weigh more.

    A token is right when its target's logit is the largest (`z[y] >= max(z)`): one max and
    one gather per token, where `argmax` over the vocabulary is many times slower on a CPU
    (TensorFlow's ArgMax kernel is not vectorized; docs/decisions.md). It differs from
    `argmax == y` only on exact ties with the maximum, which count as right here.

    Call (`update_state`):
        y_true: `(batch, target_len)` int ids, 0 = padding.
        y_pred: logits `(batch, target_len, vocab)`.

    Example:
        >>> model.compile(..., metrics=[MaskedAccuracy()])
    """

    def __init__(self, name="accuracy", **kwargs):
        super().__init__(name=name, **kwargs)
        self.correct = self.add_variable(shape=(), initializer="zeros", name="correct")
        self.total = self.add_variable(shape=(), initializer="zeros", name="total")

    def update_state(self, y_true, y_pred, sample_weight=None):
        y_true = ops.cast(y_true, "int32")
        mask = ops.not_equal(y_true, PAD_ID)
        target_logit = ops.squeeze(ops.take_along_axis(y_pred, y_true[..., None], axis=-1), -1)
        hits = ops.logical_and(mask, target_logit >= ops.max(y_pred, axis=-1))
        self.correct.assign_add(ops.sum(ops.cast(hits, "float32")))
        self.total.assign_add(ops.sum(ops.cast(mask, "float32")))

    def result(self):
        return self.correct / ops.maximum(self.total, 1.0)

    def reset_state(self):
        self.correct.assign(0.0)
        self.total.assign(0.0)
