"""BahdanauAttention against NumPy references written from Bahdanau et al. (2014)."""

import keras
import numpy as np
import pytest

from keras_nmt.layers.attention import BahdanauAttention
from tests.layers.layer_test_case import check_attention_keras_file

BATCH, SOURCE_LEN, TARGET_LEN, MEMORY_DIM, QUERY_DIM, UNITS = 2, 5, 3, 4, 6, 3
MEMORY_MASK = np.array([[1, 1, 1, 0, 0], [1, 1, 1, 1, 1]], dtype=bool)


def _inputs(query_rank, seed=0):
    rng = np.random.default_rng(seed)
    memory = rng.normal(size=(BATCH, SOURCE_LEN, MEMORY_DIM)).astype("float32")
    shape = (BATCH, QUERY_DIM) if query_rank == 2 else (BATCH, TARGET_LEN, QUERY_DIM)
    return rng.normal(size=shape).astype("float32"), memory


def _reference(layer, query, memory, mask):
    """e_tj = v . tanh(W s + U h_j) (+ b, with v weight-normalized), then a masked softmax."""
    query3 = query[:, None, :] if query.ndim == 2 else query  # (batch, target_len, query_dim)
    w = np.asarray(layer.query_layer.kernel).T  # (units, query_dim)
    u = np.asarray(layer.memory_layer.kernel).T  # (units, memory_dim)
    v = np.asarray(layer.v)
    b = np.zeros(UNITS)
    if layer.normalize:
        v = float(np.asarray(layer.g)) * v / np.linalg.norm(v)
        b = np.asarray(layer.b)
    scores = np.zeros((query3.shape[0], query3.shape[1], memory.shape[1]))
    for i in range(query3.shape[0]):
        for t in range(query3.shape[1]):
            for j in range(memory.shape[1]):
                scores[i, t, j] = v @ np.tanh(w @ query3[i, t] + u @ memory[i, j] + b)
    scores = np.where(mask[:, None, :], scores, -np.inf)
    exp = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = exp / exp.sum(axis=-1, keepdims=True)
    context = weights @ memory
    if query.ndim == 2:
        return context[:, 0], weights[:, 0]
    return context, weights


@pytest.mark.parametrize("query_rank", [2, 3])
@pytest.mark.parametrize("normalize", [False, True])
def test_matches_numpy_reference(normalize, query_rank):
    query, memory = _inputs(query_rank)
    layer = BahdanauAttention(UNITS, normalize=normalize)
    layer(query, memory, memory_mask=MEMORY_MASK)  # build
    if normalize:
        np.testing.assert_allclose(float(np.asarray(layer.g)), np.sqrt(1 / UNITS), rtol=1e-6)
        # Move g and b off their initial values so both are really exercised.
        layer.g.assign(1.3)
        layer.b.assign(np.array([0.2, -0.1, 0.4], "float32"))
    context, weights = layer(query, memory, memory_mask=MEMORY_MASK)
    context, weights = np.asarray(context), np.asarray(weights)
    expected_context, expected_weights = _reference(layer, query, memory, MEMORY_MASK)

    assert context.shape == query.shape[:-1] + (MEMORY_DIM,)
    assert weights.shape == query.shape[:-1] + (SOURCE_LEN,)
    np.testing.assert_allclose(weights, expected_weights, atol=1e-5)
    np.testing.assert_allclose(context, expected_context, atol=1e-5)
    padding = np.broadcast_to(~MEMORY_MASK[:, None, :] if query_rank == 3 else ~MEMORY_MASK,
                              weights.shape)
    assert np.all(weights[padding] == 0.0)
    np.testing.assert_allclose(weights.sum(-1), 1.0, atol=1e-6)


def test_fully_masked_row_gives_zeros_not_nan():
    query, memory = _inputs(2)
    mask = MEMORY_MASK.copy()
    mask[1] = False
    context, weights = BahdanauAttention(UNITS)(query, memory, memory_mask=mask)
    assert np.all(np.asarray(weights)[1] == 0.0) and np.all(np.asarray(context)[1] == 0.0)
    assert np.all(np.isfinite(np.asarray(weights)))


@pytest.mark.parametrize("query_rank", [2, 3])
def test_key_projection_is_done_once(query_rank):
    query, memory = _inputs(query_rank)
    layer = BahdanauAttention(UNITS, normalize=True)
    keys = layer.project_memory(memory)  # works before the layer has seen a query
    assert keys.shape == (BATCH, SOURCE_LEN, UNITS)
    np.testing.assert_allclose(
        np.asarray(keys), memory @ np.asarray(layer.memory_layer.kernel), atol=1e-5
    )
    with_keys = layer(query, memory, memory_mask=MEMORY_MASK, projected_memory=keys)
    without = layer(query, memory, memory_mask=MEMORY_MASK)
    for a, b in zip(with_keys, without, strict=True):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), atol=1e-6)

    # A decoding loop: U h_j is computed once, then never again at the steps.
    projections = []
    original_call = layer.memory_layer.call

    def counting_call(*args, **kwargs):
        projections.append(1)
        return original_call(*args, **kwargs)

    layer.memory_layer.call = counting_call
    keys = layer.project_memory(memory)
    for step in range(4):
        layer(query if query_rank == 2 else query[:, step % TARGET_LEN], memory,
              memory_mask=MEMORY_MASK, projected_memory=keys)
    assert len(projections) == 1
    layer(query, memory, memory_mask=MEMORY_MASK)  # without keys it projects inside the call
    assert len(projections) == 2


def test_implicit_mask_list():
    query, memory = _inputs(3)
    layer = BahdanauAttention(UNITS)
    named = layer(query, memory, memory_mask=MEMORY_MASK)
    listed = layer(query, memory, mask=[None, MEMORY_MASK])
    for a, b in zip(named, listed, strict=True):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


@pytest.mark.parametrize("normalize", [False, True])
def test_config_round_trip_and_keras_file(normalize, tmp_path):
    layer = BahdanauAttention(UNITS, normalize=normalize, name="attention")
    config = layer.get_config()
    assert config["units"] == UNITS and config["normalize"] == normalize
    assert BahdanauAttention.from_config(config).get_config() == config

    def after_build():
        if normalize:
            layer.b.assign(np.array([0.2, -0.1, 0.4], "float32"))

    check_attention_keras_file(layer, *_inputs(2), MEMORY_MASK, tmp_path, after_build)


@keras.saving.register_keras_serializable(package="keras_nmt_tests")
class _ProjectingModel(keras.Model):
    """The functional twins' pattern: the graph (with `project_memory`) is rebuilt in __init__."""

    def __init__(self, units=UNITS, **kwargs):
        attention = BahdanauAttention(units, name="attention")
        query_in = keras.Input((QUERY_DIM,))
        memory_in = keras.Input((SOURCE_LEN, MEMORY_DIM))
        mask_in = keras.Input((SOURCE_LEN,), dtype="bool")
        keys = attention.project_memory(memory_in)
        outputs = attention(query_in, memory_in, memory_mask=mask_in, projected_memory=keys)
        super().__init__(inputs=[query_in, memory_in, mask_in], outputs=list(outputs), **kwargs)
        self.units = units

    def get_config(self):
        return {"units": self.units, "name": self.name}


def test_project_memory_in_functional_model_subclass_reloads(tmp_path):
    model = _ProjectingModel()
    query, memory = _inputs(2)
    expected = model([query, memory, MEMORY_MASK])
    model.save(tmp_path / "model.keras")
    restored = keras.models.load_model(tmp_path / "model.keras")
    for a, b in zip(restored([query, memory, MEMORY_MASK]), expected, strict=True):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
