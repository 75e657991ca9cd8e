"""`FusedAdam` against Keras' Adam: same weights, the fused kernel in the graph, same config."""

import keras
import numpy as np
import pytest
import tensorflow as tf

from keras_nmt.training.fused_adam import FusedAdam

OPTIONS = {"learning_rate": 0.01, "beta_1": 0.9, "beta_2": 0.98, "epsilon": 1e-9, "clipnorm": 1.0}


def make_weights():
    rng = np.random.default_rng(0)
    return [
        keras.Variable(rng.normal(size=(20, 6)).astype("float32"), name="embeddings"),
        keras.Variable(rng.normal(size=(6, 5)).astype("float32"), name="kernel"),
        keras.Variable(np.zeros(5, "float32"), name="bias"),
    ]


def gradients(step, dense=False):
    """An embedding's sparse gradient (dense: summed into a tensor) and dense ones of growing
    size (later clipped by `clipnorm`)."""
    rng = np.random.default_rng(step + 1)
    rows = tf.constant([3, 7, 3], "int64")  # a repeated row: its slices add up
    # Small enough never to be clipped: Keras' norm of slices is not the dense gradient's.
    embedding = tf.IndexedSlices(tf.constant(rng.normal(scale=0.1, size=(3, 6)), "float32"),
                                 rows, tf.constant([20, 6], "int64"))
    return [
        tf.convert_to_tensor(embedding) if dense else embedding,
        tf.constant(rng.normal(scale=0.1 * (step + 1), size=(6, 5)), "float32"),
        tf.constant(rng.normal(scale=0.01, size=5), "float32"),
    ]


def train(optimizer, steps=6, dense=False):
    weights = make_weights()
    apply = tf.function(
        lambda step: optimizer.apply_gradients(zip(gradients(step, dense), weights, strict=True)))
    for step in range(steps):
        apply(step)
    return [w.numpy() for w in weights], apply


def test_weights_equal_keras_adam_within_float32_rounding():
    # Keras' own TensorFlow update squares an embedding's slices before adding up repeated rows
    # (`v` gets the sum of squares); FusedAdam, like Keras under JAX, squares the summed
    # gradient: so Keras' Adam is given the dense gradient here.
    expected, _ = train(keras.optimizers.Adam(**OPTIONS), dense=True)
    fused, _ = train(FusedAdam(**OPTIONS))
    start = make_weights()
    for want, got, before in zip(expected, fused, start, strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
        assert np.abs(want - before.numpy()).max() > 0.01  # the weights did move


def test_the_update_is_the_fused_kernel():
    _, apply = train(FusedAdam(**OPTIONS), steps=1)
    op_types = {op.type for op in apply.get_concrete_function(0).graph.get_operations()}
    assert "ResourceApplyAdam" in op_types


@pytest.mark.parametrize("fallback", ["amsgrad", "other_backend"])
def test_amsgrad_and_other_backends_use_keras_update_exactly(fallback, monkeypatch):
    options = {**OPTIONS, "amsgrad": fallback == "amsgrad"}
    expected, _ = train(keras.optimizers.Adam(**options), dense=True)
    if fallback == "other_backend":
        monkeypatch.setattr(keras.backend, "backend", lambda: "jax")
    fused, apply = train(FusedAdam(**options), dense=True)
    for want, got in zip(expected, fused, strict=True):
        np.testing.assert_array_equal(got, want)
    op_types = {op.type for op in apply.get_concrete_function(0).graph.get_operations()}
    assert "ResourceApplyAdam" not in op_types


def test_config_round_trips_and_reloads_by_name():
    optimizer = FusedAdam(**OPTIONS)
    restored = keras.optimizers.deserialize(keras.optimizers.serialize(optimizer))
    assert type(restored) is FusedAdam
    assert restored.get_config() == optimizer.get_config()
