"""Token accuracy over non-padding positions."""

import keras
from keras import ops

from keras_nmt.special_ids import PAD_ID


@keras.saving.register_keras_serializable(package="keras_nmt")
class MaskedAccuracy(keras.metrics.Metric):
    """Fraction of non-padding target tokens whose argmax prediction is right.

    Accumulated as total correct over total real tokens across batches (not a mean of batch
    means), so batches with more padding do not weigh more.

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
        mask = ops.cast(ops.not_equal(y_true, PAD_ID), "float32")
        predictions = ops.cast(ops.argmax(y_pred, axis=-1), "int32")
        hits = ops.cast(ops.equal(predictions, y_true), "float32")
        self.correct.assign_add(ops.sum(hits * mask))
        self.total.assign_add(ops.sum(mask))

    def result(self):
        return self.correct / ops.maximum(self.total, 1.0)

    def reset_state(self):
        self.correct.assign(0.0)
        self.total.assign(0.0)
