"""TokenErrorRate (tf.edit_distance in the graph) against the plain-Python corpus error rate."""

import numpy as np
import pytest
import tensorflow as tf

from keras_nmt.metrics import corpus_error_rate
from keras_nmt.metrics.token_error_rate import TokenErrorRate
from keras_nmt.special_ids import END_ID, PAD_ID, START_ID


def _tokens(row):
    """What the metric compares: cut at the first END, drop PAD and START."""
    row = list(row)
    if END_ID in row:
        row = row[: row.index(END_ID)]
    return [t for t in row if t not in (PAD_ID, START_ID)]


def _plain_rate(targets, predictions):
    result = corpus_error_rate([_tokens(p) for p in predictions], [[_tokens(t)] for t in targets])
    return result


# targets: y + [END], padded with 0 (batch 4, len 6); predictions of another length (batch 4, 7).
TARGETS = [
    [5, 6, 7, 8, 3, 0],  # 4 tokens
    [9, 10, 3, 0, 0, 0],  # 2 tokens
    [11, 12, 13, 14, 15, 3],  # 5 tokens
    [3, 0, 0, 0, 0, 0],  # empty
]
PREDICTIONS = [
    [5, 6, 9, 8, 3, 3, 3],  # 1 substitution; everything after END ignored
    [2, 9, 3, 10, 10, 0, 0],  # START dropped, cut at END: 1 deletion
    [11, 13, 14, 15, 16, 17, 3],  # 1 deletion (12), 2 insertions (16, 17)
    [20, 3, 0, 0, 0, 0, 0],  # 1 insertion against the empty reference
]


def test_hand_made_batch():
    metric = TokenErrorRate()
    metric.update_state(tf.constant(TARGETS), tf.constant(PREDICTIONS))
    expected = _plain_rate(TARGETS, PREDICTIONS)
    assert (expected.edits, expected.reference_length) == (6, 11)
    assert float(metric.total_edits.numpy()) == 6.0
    assert float(metric.total_reference_tokens.numpy()) == 11.0
    assert float(metric.result()) == pytest.approx(6 / 11)


def test_accumulates_over_batches_as_total_over_total():
    metric = TokenErrorRate()
    for i in range(len(TARGETS)):  # one sentence per batch: same corpus total
        metric.update_state(tf.constant(TARGETS[i : i + 1]), tf.constant(PREDICTIONS[i : i + 1]))
    assert float(metric.result()) == pytest.approx(6 / 11)
    metric.reset_state()
    assert float(metric.result()) == 0.0


def test_random_batches_match_plain_function_in_graph():
    rng = np.random.default_rng(0)
    targets = rng.integers(0, 9, size=(16, 9)).astype("int32")  # ids 0..8 include PAD, START, END
    predictions = rng.integers(0, 9, size=(16, 7)).astype("int32")
    metric = TokenErrorRate()
    update = tf.function(metric.update_state)
    update(tf.constant(targets[:8]), tf.constant(predictions[:8]))
    update(tf.constant(targets[8:]), tf.constant(predictions[8:]))
    expected = _plain_rate(targets, predictions)
    assert float(metric.total_edits.numpy()) == expected.edits
    assert float(metric.total_reference_tokens.numpy()) == expected.reference_length
    assert float(metric.result()) == pytest.approx(expected.rate)


def test_logits_are_argmaxed():
    vocab = 8
    predicted_ids = [[5, 6, 4, 3], [7, 3, 0, 0]]
    logits = tf.one_hot(predicted_ids, vocab) * 5.0  # (batch 2, len 4, vocab 8)
    targets = [[5, 6, 3, 0], [7, 7, 3, 0]]
    metric = TokenErrorRate()
    metric.update_state(tf.constant(targets), logits)
    # Sentence 1: one insertion (4); sentence 2: one deletion. 2 edits / 4 reference tokens.
    assert float(metric.result()) == pytest.approx(0.5)


def test_empty_references_and_config():
    metric = TokenErrorRate()
    metric.update_state(tf.constant([[3, 0], [0, 0]]), tf.constant([[3, 3], [0, 0]]))
    assert float(metric.result()) == 0.0
    metric.update_state(tf.constant([[3, 0]]), tf.constant([[4, 3]]))
    assert float(metric.result()) == 1.0  # 1 insertion / max(0, 1)
    config = metric.get_config()
    assert (config["end_id"], config["ignore_ids"]) == (END_ID, [PAD_ID, START_ID])
    clone = TokenErrorRate.from_config(config)
    assert (clone.name, clone.end_id, clone.ignore_ids) == ("token_error_rate", 3, (0, 2))
