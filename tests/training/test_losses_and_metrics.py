"""Masked loss, accuracy and perplexity against hand computations; teacher-forcing schedules."""

import math

import numpy as np
import pytest
import tensorflow as tf

from keras_nmt.training.masked_accuracy import MaskedAccuracy
from keras_nmt.training.masked_sparse_cross_entropy import MaskedSparseCrossEntropy
from keras_nmt.training.perplexity import Perplexity
from keras_nmt.training.teacher_forcing_schedule import TeacherForcingSchedule
from keras_nmt.workshop.run.train_config import teacher_forcing_values

pytestmark = pytest.mark.jax

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


def reference_token_terms(y_true, logits, eps):
    """The plain computation: log_softmax, gather, mean (what the fused kernels replace)."""
    log_probs = tf.nn.log_softmax(tf.cast(logits, tf.float32))
    nll = -tf.squeeze(tf.gather(log_probs, y_true[..., None], batch_dims=2), -1)
    smoothed = (1 - eps) * nll + eps * -tf.reduce_mean(log_probs, axis=-1)
    mask = tf.cast(y_true != 0, tf.float32)
    return nll, smoothed, mask


def random_batch(seed=0, batch=3, length=7, vocab=50):
    """Logits with a wide range and targets with trailing padding of varying length."""
    rng = np.random.default_rng(seed)
    logits = tf.constant(rng.normal(scale=4.0, size=(batch, length, vocab)), tf.float32)
    y_true = rng.integers(1, vocab, size=(batch, length))
    for row, real in enumerate(rng.integers(1, length + 1, size=batch)):
        y_true[row, real:] = 0
    return tf.constant(y_true, tf.int32), logits


@pytest.mark.tensorflow  # gradients through tf.GradientTape (the loss values run under JAX too)
@pytest.mark.parametrize("eps", [0.0, 0.1, 0.3])
def test_fused_loss_and_gradient_equal_the_reference(eps):
    y_true, logits = random_batch()
    loss = MaskedSparseCrossEntropy(label_smoothing=eps)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(logits)
        fused = loss(y_true, logits)
        _, smoothed, mask = reference_token_terms(y_true, logits, eps)
        reference = tf.reduce_sum(smoothed * mask) / tf.reduce_sum(mask)
    assert float(fused) == pytest.approx(float(reference), rel=1e-5)
    fused_grad, reference_grad = tape.gradient(fused, logits), tape.gradient(reference, logits)
    np.testing.assert_allclose(fused_grad.numpy(), reference_grad.numpy(), atol=1e-6)
    assert not fused_grad.numpy()[y_true.numpy() == 0].any()  # padding gets no gradient


def test_fused_loss_under_bfloat16_logits_matches_float32_reference():
    y_true, logits = random_batch(seed=1)
    low = tf.cast(logits, tf.bfloat16)
    _, smoothed, mask = reference_token_terms(y_true, low, 0.1)
    reference = float(tf.reduce_sum(smoothed * mask) / tf.reduce_sum(mask))
    assert float(MaskedSparseCrossEntropy(0.1)(y_true, low)) == pytest.approx(reference, rel=1e-5)


def test_thin_accuracy_and_perplexity_equal_the_reference():
    accuracy, perplexity = MaskedAccuracy(), Perplexity()
    hits = nll_sum = tokens = 0.0
    for seed in range(3):
        y_true, logits = random_batch(seed=seed, vocab=5)  # small vocabulary: many hits
        accuracy.update_state(y_true, logits)
        perplexity.update_state(y_true, logits)
        nll, _, mask = reference_token_terms(y_true, logits, 0.0)
        right = tf.cast(tf.argmax(logits, axis=-1, output_type=tf.int32) == y_true, tf.float32)
        hits += float(tf.reduce_sum(right * mask))
        nll_sum += float(tf.reduce_sum(nll * mask))
        tokens += float(tf.reduce_sum(mask))
    assert 0 < hits < tokens
    assert float(accuracy.result()) == pytest.approx(hits / tokens, rel=1e-6)
    assert float(perplexity.result()) == pytest.approx(math.exp(nll_sum / tokens), rel=1e-5)


def test_schedules_follow_bengio_2015():
    def parse(text):  # the --teacher-forcing flag
        return TeacherForcingSchedule(*teacher_forcing_values(text))

    assert parse("constant:0.7").probability(10_000) == 0.7
    linear = parse("linear:0.001:0.2")
    assert [linear.probability(i) for i in (0, 500, 5000)] == pytest.approx([1.0, 0.5, 0.2])
    exponential = parse("exponential:0.99")
    assert exponential.probability(100) == pytest.approx(0.99**100)
    sigmoid = parse("inverse_sigmoid:10")
    assert sigmoid.probability(0) == pytest.approx(10 / 11)
    assert sigmoid.probability(50) == pytest.approx(10 / (10 + math.exp(5)))
    assert parse("constant").is_plain_teacher_forcing
    with pytest.raises(ValueError, match="unknown teacher-forcing schedule"):
        parse("cosine")
    with pytest.raises(ValueError, match="0 < k < 1"):
        TeacherForcingSchedule("exponential", 1.5)
