"""Token-level cross-entropy that ignores padding, with optional label smoothing."""

import keras
from keras import ops

from keras_nmt.special_ids import PAD_ID


def token_nll(y_true, y_pred):
    """Per-token negative log-likelihood in float32, forward only (metrics).

    `logsumexp(z) - z[y]`: two reductions over the vocabulary and no `(batch, target_len,
    vocab)` output, cheaper than `log_softmax` + gather and than the fused training kernel
    (which also computes its gradient).

    Args:
        y_true: `(batch, target_len)` int ids, 0 = padding.
        y_pred: logits `(batch, target_len, vocab)`.

    Returns:
        `nll (batch, target_len)` and `mask (batch, target_len)` float32 (1 on real tokens).
    """
    y_true = ops.cast(y_true, "int32")
    logits = ops.cast(y_pred, "float32")
    target_logit = ops.squeeze(ops.take_along_axis(logits, y_true[..., None], axis=-1), -1)
    nll = ops.logsumexp(logits, axis=-1) - target_logit
    return nll, ops.cast(ops.not_equal(y_true, PAD_ID), "float32")


@keras.saving.register_keras_serializable(package="keras_nmt")
class MaskedSparseCrossEntropy(keras.losses.Loss):
    """Mean cross-entropy over the non-padding target tokens of a batch.

    Padding (id 0) never counts: the loss is the sum over real tokens divided by their number,
    so adding padding to a batch changes nothing. With `label_smoothing = ε` the target
    distribution is `(1 - ε) · one_hot + ε / vocab` (Szegedy et al. 2016; Vaswani et al. 2017
    use ε = 0.1). Logits are upcast to float32 first, so it is safe under mixed precision.

    Both cases use TensorFlow's fused softmax cross-entropy kernels (through `keras.ops`), whose
    gradient `softmax - labels` comes out of the forward pass: without smoothing the sparse one
    (integer labels), with smoothing the dense one on the smoothed one-hot labels. A
    `log_softmax` + gather (+ mean) costs several more passes over the `(batch, target_len,
    vocab)` logits, forward and backward.

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
        y_true = ops.cast(y_true, "int32")
        logits = ops.cast(y_pred, "float32")
        if self.label_smoothing:
            vocab = logits.shape[-1]
            labels = ops.one_hot(y_true, vocab) * (1.0 - self.label_smoothing)
            labels = labels + self.label_smoothing / vocab
            nll = ops.categorical_crossentropy(labels, logits, from_logits=True)
        else:
            nll = ops.sparse_categorical_crossentropy(y_true, logits, from_logits=True)
        mask = ops.cast(ops.not_equal(y_true, PAD_ID), "float32")
        return ops.sum(nll * mask) / ops.maximum(ops.sum(mask), 1.0)

    def get_config(self):
        return {**super().get_config(), "label_smoothing": self.label_smoothing}
