"""Masked loss, accuracy and perplexity against hand computations; teacher-forcing schedules."""

import math

import numpy as np
import pytest

from keras_nmt.training import (
    MaskedAccuracy,
    MaskedSparseCrossEntropy,
    Perplexity,
    TeacherForcingSchedule,
)

# Two sentences: [a, b] and [c, pad]. Vocabulary of 3 (0 = pad).
Y_TRUE = np.array([[1, 2], [2, 0]])
LOGITS = np.array(
    [
        [[0.0, 2.0, 0.0], [0.0, 0.0, 1.0]],
        [[0.0, 3.0, 0.0], [5.0, -5.0, 9.0]],  # the padded position holds garbage
    ],
    dtype="float32",
)


def log_softmax(row):
    row = np.asarray(row, dtype="float64")
    return row - math.log(np.exp(row).sum())


def test_masked_loss_by_hand():
    expected = -(
        log_softmax(LOGITS[0, 0])[1] + log_softmax(LOGITS[0, 1])[2] + log_softmax(LOGITS[1, 0])[2]
    ) / 3
    assert float(MaskedSparseCrossEntropy()(Y_TRUE, LOGITS)) == pytest.approx(expected, rel=1e-6)


def test_label_smoothing_by_hand():
    eps = 0.1
    total = 0.0
    for (b, t), target in np.ndenumerate(Y_TRUE):
        if target:
            logp = log_softmax(LOGITS[b, t])
            total += (1 - eps) * -logp[target] + eps * -logp.mean()
    loss = MaskedSparseCrossEntropy(label_smoothing=eps)(Y_TRUE, LOGITS)
    assert float(loss) == pytest.approx(total / 3, rel=1e-6)


def test_masked_accuracy_and_perplexity_by_hand():
    accuracy = MaskedAccuracy()
    accuracy.update_state(Y_TRUE, LOGITS)  # predictions 1, 2, 1 against 1, 2, 2 -> 2 of 3
    assert float(accuracy.result()) == pytest.approx(2 / 3)
    accuracy.update_state(np.array([[1, 0, 0]]), np.eye(3, dtype="float32")[None, [1, 0, 0]])
    assert float(accuracy.result()) == pytest.approx(3 / 4)  # total over total, not mean of means
    perplexity = Perplexity()
    perplexity.update_state(Y_TRUE, LOGITS)
    loss = float(MaskedSparseCrossEntropy()(Y_TRUE, LOGITS))
    assert float(perplexity.result()) == pytest.approx(math.exp(loss), rel=1e-5)


def test_schedules_follow_bengio_2015():
    assert TeacherForcingSchedule.parse("constant:0.7").probability(10_000) == 0.7
    linear = TeacherForcingSchedule.parse("linear:0.001:0.2")
    assert [linear.probability(i) for i in (0, 500, 5000)] == pytest.approx([1.0, 0.5, 0.2])
    exponential = TeacherForcingSchedule.parse("exponential:0.99")
    assert exponential.probability(100) == pytest.approx(0.99**100)
    sigmoid = TeacherForcingSchedule.parse("inverse_sigmoid:10")
    assert sigmoid.probability(0) == pytest.approx(10 / 11)
    assert sigmoid.probability(50) == pytest.approx(10 / (10 + math.exp(5)))
    assert TeacherForcingSchedule.parse("constant").is_plain_teacher_forcing
    with pytest.raises(ValueError, match="unknown teacher-forcing schedule"):
        TeacherForcingSchedule.parse("cosine")
    with pytest.raises(ValueError, match="0 < k < 1"):
        TeacherForcingSchedule("exponential", 1.5)
