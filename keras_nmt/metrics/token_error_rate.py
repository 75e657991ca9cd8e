"""`TokenErrorRate`: corpus token error rate of id sequences, in graph, via `tf.edit_distance`."""

import keras
import tensorflow as tf

from keras_nmt.special_ids import END_ID, PAD_ID, START_ID


@keras.saving.register_keras_serializable(package="keras_nmt")
class TokenErrorRate(keras.metrics.Metric):
    """Total Levenshtein edits over total reference tokens, accumulated over batches.

    The in-graph counterpart of `keras_nmt.metrics.edit_distance.corpus_error_rate` on token ids:
    each row is cut at its first ``end_id`` (exclusive), the ``ignore_ids`` (padding and start by
    default, as the tokenizers' ``detokenize`` drops them) are removed, and ``tf.edit_distance``
    with ``normalize=False`` gives the unit-cost Levenshtein (1966) distance of every pair. The
    result is ``total_edits / max(total_reference_tokens, 1)``, the corpus aggregate, not the mean
    of per-sentence rates. On characters it is a CER, on words a WER, on subwords a TER-like rate.

    Because it works on ids, it can run inside ``model.fit`` (teacher-forced, with logits) or on
    the output of a graph decoder, without detokenizing.

    Not XLA-compilable: ``tf.edit_distance`` and the ragged-to-sparse conversion have no XLA
    kernels. Keras' ``jit_compile="auto"`` turns XLA on whenever a GPU is visible, so a model that
    lists this metric in ``compile(metrics=...)`` must be compiled with ``jit_compile=False``
    (on CPU-only machines "auto" already means no XLA). Outside ``fit`` (e.g. on decoder output
    in a plain ``tf.function``) nothing special is needed.

    Args:
        end_id: Id that ends a sequence; it and everything after it are ignored.
        ignore_ids: Ids removed before comparing (padding, start).
        name: Metric name (``history`` key).
        dtype: Dtype of the result; the counts are kept in float32 (exact up to 2**24 tokens).

    Shapes:
        ``update_state(y_true, y_pred)``: ``y_true`` int ``(batch, tgt_len)`` reference ids;
        ``y_pred`` int ``(batch, hyp_len)`` predicted ids, or float ``(batch, hyp_len, vocab)``
        logits/probabilities (argmax is taken). ``tgt_len`` and ``hyp_len`` may differ.
        ``sample_weight`` is accepted for API compatibility and ignored: padding is removed by id.

    Example:
        >>> metric = TokenErrorRate()
        >>> metric.update_state([[5, 6, 7, 3, 0]], [[5, 9, 7, 3, 3]])  # one substitution
        >>> float(metric.result())  # 1 edit / 3 reference tokens
        0.3333333432674408
    """

    def __init__(
        self,
        end_id: int = END_ID,
        ignore_ids: tuple[int, ...] = (PAD_ID, START_ID),
        name: str = "token_error_rate",
        dtype=None,
    ):
        super().__init__(name=name, dtype=dtype)
        self.end_id = int(end_id)
        self.ignore_ids = tuple(int(i) for i in ignore_ids)
        self.total_edits = self.add_variable(
            shape=(), initializer="zeros", dtype="float32", name="total_edits"
        )
        self.total_reference_tokens = self.add_variable(
            shape=(), initializer="zeros", dtype="float32", name="total_reference_tokens"
        )

    def _to_sparse(self, ids: tf.Tensor) -> tf.SparseTensor:
        """Dense ``(batch, len)`` ids to a SparseTensor of the kept tokens, left-aligned."""
        ids = tf.cast(ids, tf.int64)
        # Positions before the first end id: the inclusive cumulative count of end ids is 0 there.
        keep = tf.equal(tf.cumsum(tf.cast(tf.equal(ids, self.end_id), tf.int32), axis=1), 0)
        for ignored in self.ignore_ids:
            keep = tf.logical_and(keep, tf.not_equal(ids, ignored))
        # Through a ragged tensor so that the kept tokens of a row get contiguous positions
        # (batch, None) -> sparse (batch, max_kept); empty rows stay in the batch.
        return tf.ragged.boolean_mask(ids, keep).to_sparse()

    def update_state(self, y_true, y_pred, sample_weight=None):
        """Adds the edits and reference lengths of one batch (shapes: see the class docstring)."""
        del sample_weight  # padding is removed by id; a per-token weight has no meaning here
        y_true = tf.convert_to_tensor(y_true)
        y_pred = tf.convert_to_tensor(y_pred)
        if y_pred.shape.rank == y_true.shape.rank + 1:  # logits (batch, len, vocab)
            y_pred = tf.argmax(y_pred, axis=-1)
        truth = self._to_sparse(y_true)  # (batch, ref_len) sparse
        hypothesis = self._to_sparse(y_pred)  # (batch, hyp_len) sparse
        # (batch,) unnormalized distances; an empty reference gives the hypothesis length.
        edits = tf.edit_distance(hypothesis, truth, normalize=False)
        self.total_edits.assign_add(tf.reduce_sum(edits))
        self.total_reference_tokens.assign_add(tf.cast(tf.size(truth.values), tf.float32))

    def result(self):
        """``total_edits / max(total_reference_tokens, 1)``, a scalar."""
        rate = self.total_edits / tf.maximum(self.total_reference_tokens, 1.0)
        return tf.cast(rate, self.dtype)

    def reset_state(self):
        self.total_edits.assign(0.0)
        self.total_reference_tokens.assign(0.0)

    def get_config(self):
        config = super().get_config()
        config.update({"end_id": self.end_id, "ignore_ids": list(self.ignore_ids)})
        return config
