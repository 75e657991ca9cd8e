"""Perplexity over non-padding target tokens."""

import keras
from keras import ops

from keras_nmt.training.masked_sparse_cross_entropy import token_nll


@keras.saving.register_keras_serializable(package="keras_nmt")
class Perplexity(keras.metrics.Metric):
    """`exp(total negative log-likelihood / total real tokens)`, padding excluded.

    Computed from the plain (unsmoothed) cross-entropy, so it stays comparable between runs
    with and without label smoothing.

    Call (`update_state`):
        y_true: `(batch, target_len)` int ids, 0 = padding.
        y_pred: logits `(batch, target_len, vocab)`.

    Example:
        >>> model.compile(..., metrics=[Perplexity()])
    """

    def __init__(self, name="perplexity", **kwargs):
        super().__init__(name=name, **kwargs)
        self.nll = self.add_variable(shape=(), initializer="zeros", name="nll")
        self.tokens = self.add_variable(shape=(), initializer="zeros", name="tokens")

    def update_state(self, y_true, y_pred, sample_weight=None):
        nll, mask = token_nll(y_true, y_pred)
        self.nll.assign_add(ops.sum(nll * mask))
        self.tokens.assign_add(ops.sum(mask))

    def result(self):
        return ops.exp(self.nll / ops.maximum(self.tokens, 1.0))

    def reset_state(self):
        self.nll.assign(0.0)
        self.tokens.assign(0.0)
