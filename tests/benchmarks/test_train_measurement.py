"""`speed.train_measurement`: the training steps it times, under each Keras backend."""

import keras
import numpy as np
import pytest

from keras_nmt.models.registry import build_model
from keras_nmt.training.masked_sparse_cross_entropy import MaskedSparseCrossEntropy
from keras_nmt.workshop.benchmarks.speed import synthetic_lengths, token_batches, train_measurement

pytestmark = pytest.mark.jax


def test_every_step_trains_and_under_jax_the_weights_are_copied_back_per_run_not_per_step():
    # Keras' JAX `train_on_batch` copies every weight back into the model after each step (and
    # waits for it); `fit` does so at its end. Counted on one weight, for 3 and 9 timed steps.
    rng = np.random.default_rng(0)
    batches = token_batches(*synthetic_lengths(60, rng, max_length=16), 128, 40, 40, rng,
                            max_batches=2)
    options = {"num_layers": 1, "d_model": 8, "num_heads": 2, "ff_dim": 16, "dropout": 0.1}
    model = build_model("transformer", "subclassed", 40, 40, options)
    model.compile(optimizer="adam", loss=MaskedSparseCrossEntropy())
    model.train_on_batch(*batches[0])  # built, so its weights exist to be counted
    weight = model.trainable_variables[0]
    copies, assign = [], weight.assign
    weight.assign = lambda value: (copies.append(1), assign(value))[1]
    iterations = lambda: int(keras.ops.convert_to_numpy(model.optimizer.iterations))  # noqa: E731
    peak = {"flops_per_second": 1e12, "dtype": "float32"}

    counts = []
    for steps in (3, 9):
        before, copied = iterations(), len(copies)
        record = train_measurement(model, "transformer", batches, steps, peak)
        assert iterations() - before == len(batches) + steps and record["steps"] == steps
        assert record["mean_step_seconds"] == pytest.approx(record["seconds"] / steps)
        counts.append(len(copies) - copied)
    if keras.backend.backend() == "jax":  # two `fit`s a run (warm-up, timed): a copy or two each
        assert max(counts) <= 4, counts  # after every step, as before: 6 and 11 copies
