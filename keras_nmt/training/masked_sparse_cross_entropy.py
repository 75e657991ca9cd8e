"""Token-level cross-entropy that ignores padding, with optional label smoothing."""

import keras
from keras import ops

from keras_nmt.special_ids import PAD_ID


def token_nll(y_true, y_pred):
    """Per-token negative log-likelihood in float32.

    Args:
        y_true: `(batch, target_len)` int ids, 0 = padding.
        y_pred: logits `(batch, target_len, vocab)`.

    Returns:
        `nll (batch, target_len)`, `mask (batch, target_len)` float32 and
        `log_probs (batch, target_len, vocab)`.
    """
    y_true = ops.cast(y_true, "int32")
    log_probs = ops.log_softmax(ops.cast(y_pred, "float32"), axis=-1)
    nll = -ops.squeeze(ops.take_along_axis(log_probs, y_true[..., None], axis=-1), -1)
    mask = ops.cast(ops.not_equal(y_true, PAD_ID), "float32")
    return nll, mask, log_probs


@keras.saving.register_keras_serializable(package="keras_nmt")
class MaskedSparseCrossEntropy(keras.losses.Loss):
    """Mean cross-entropy over the non-padding target tokens of a batch.

    Padding (id 0) never counts: the loss is the sum over real tokens divided by their number,
    so adding padding to a batch changes nothing. With `label_smoothing = ε` the target
    distribution is `(1 - ε) · one_hot + ε / vocab` (Szegedy et al. 2016; Vaswani et al. 2017
    use ε = 0.1). Logits are upcast to float32 first, so it is safe under mixed precision.

    Args:
        label_smoothing: ε in [0, 1).

    Call:
        y_true: `(batch, target_len)` int ids, 0 = padding.
        y_pred: logits `(batch, target_len, vocab)`.
        returns: scalar loss.

    Example:
        >>> model.compile(optimizer="adam", loss=MaskedSparseCrossEntropy(label_smoothing=0.1))
    """

    def __init__(self, label_smoothing=0.0, name="masked_sparse_cross_entropy", **kwargs):
        super().__init__(name=name, **kwargs)
        if not 0.0 <= label_smoothing < 1.0:
            raise ValueError(f"label_smoothing must be in [0, 1), got {label_smoothing}")
        self.label_smoothing = label_smoothing

    def call(self, y_true, y_pred):
        nll, mask, log_probs = token_nll(y_true, y_pred)
        if self.label_smoothing:
            uniform = -ops.mean(log_probs, axis=-1)  # cross-entropy with the uniform distribution
            nll = (1.0 - self.label_smoothing) * nll + self.label_smoothing * uniform
        return ops.sum(nll * mask) / ops.maximum(ops.sum(mask), 1.0)

    def get_config(self):
        return {**super().get_config(), "label_smoothing": self.label_smoothing}
