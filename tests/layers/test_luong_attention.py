"""LuongAttention against NumPy references written from Luong et al. (2015), eq. 8."""

import keras
import numpy as np
import pytest

from keras_nmt.layers.attention import LuongAttention
from tests.layers.layer_test_case import check_attention_keras_file

BATCH, SOURCE_LEN, TARGET_LEN, DIM = 2, 5, 3, 4
# Row 0 has two padding positions, row 1 none.
MEMORY_MASK = np.array([[1, 1, 1, 0, 0], [1, 1, 1, 1, 1]], dtype=bool)


def _inputs(query_rank, seed=0, query_dim=DIM):
    rng = np.random.default_rng(seed)
    memory = rng.normal(size=(BATCH, SOURCE_LEN, DIM)).astype("float32")
    shape = (BATCH, query_dim) if query_rank == 2 else (BATCH, TARGET_LEN, query_dim)
    query = rng.normal(size=shape).astype("float32")
    return query, memory


def _masked_softmax(scores, mask):
    # scores: (batch, target_len, source_len); mask: (batch, source_len)
    scores = np.where(mask[:, None, :], scores, -np.inf)
    exp = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return exp / exp.sum(axis=-1, keepdims=True)


def _reference(layer, query, memory, mask):
    """Eq. 8 of Luong et al. (2015) in NumPy, written from the paper, not from the layer."""
    query3 = query[:, None, :] if query.ndim == 2 else query  # (batch, target_len, query_dim)
    if layer.score == "dot":
        scores = np.einsum("btq,bsq->bts", query3, memory)  # h_t . h̄_s
    elif layer.score == "general":
        w_a = np.asarray(layer.memory_layer.kernel).T  # (query_dim, memory_dim)
        scores = np.einsum("btq,qm,bsm->bts", query3, w_a, memory)  # h_t . W_a h̄_s
    else:
        # W_a acts on the concatenation [h_t; h̄_s]: its columns are the query then memory parts.
        w_a = np.concatenate(
            [np.asarray(layer.query_layer.kernel), np.asarray(layer.memory_layer.kernel)], axis=0
        ).T  # (units, query_dim + memory_dim)
        v_a = np.asarray(layer.v)
        scores = np.zeros((query3.shape[0], query3.shape[1], memory.shape[1]))
        for b in range(query3.shape[0]):
            for t in range(query3.shape[1]):
                for s in range(memory.shape[1]):
                    stacked = np.concatenate([query3[b, t], memory[b, s]])
                    scores[b, t, s] = v_a @ np.tanh(w_a @ stacked)
    if layer.scale:
        scores = scores * float(np.asarray(layer.scale_weight))
    weights = _masked_softmax(scores, mask)
    context = weights @ memory
    if query.ndim == 2:
        return context[:, 0], weights[:, 0]
    return context, weights


@pytest.mark.parametrize("query_rank", [2, 3])
@pytest.mark.parametrize(
    "score,scale", [("dot", False), ("general", False), ("concat", False), ("dot", True),
                    ("general", True)]
)
def test_matches_numpy_reference(score, scale, query_rank):
    query, memory = _inputs(query_rank)
    layer = LuongAttention(score, scale=scale)
    layer(query, memory, memory_mask=MEMORY_MASK)  # build
    if scale:
        layer.scale_weight.assign(0.5)  # not the initial 1, so the scaling is really tested
    context, weights = layer(query, memory, memory_mask=MEMORY_MASK)
    context, weights = np.asarray(context), np.asarray(weights)
    expected_context, expected_weights = _reference(layer, query, memory, MEMORY_MASK)

    assert weights.shape == expected_weights.shape
    assert context.shape == query.shape[:-1] + (DIM,)
    np.testing.assert_allclose(weights, expected_weights, atol=1e-5)
    np.testing.assert_allclose(context, expected_context, atol=1e-5)
    # Masked sources get exactly zero; rows sum to one; the context is the weighted memory.
    padding = ~MEMORY_MASK[:, None, :] if query_rank == 3 else ~MEMORY_MASK
    padding = np.broadcast_to(padding, weights.shape)
    assert np.all(weights[padding] == 0.0)
    np.testing.assert_allclose(weights.sum(-1), 1.0, atol=1e-6)
    weights3 = weights if query_rank == 3 else weights[:, None]
    np.testing.assert_allclose(
        np.squeeze(weights3 @ memory, 1) if query_rank == 2 else weights3 @ memory,
        context, atol=1e-5,
    )


def test_fully_masked_row_gives_zeros_not_nan():
    query, memory = _inputs(3)
    mask = MEMORY_MASK.copy()
    mask[0] = False
    context, weights = LuongAttention("general")(query, memory, memory_mask=mask)
    assert np.all(np.asarray(weights)[0] == 0.0)
    assert np.all(np.asarray(context)[0] == 0.0)
    assert np.all(np.isfinite(np.asarray(weights)))
    np.testing.assert_allclose(np.asarray(weights)[1].sum(-1), 1.0, atol=1e-6)


def test_unit_count_for_concat_and_query_size_check_for_general():
    query, memory = _inputs(3, query_dim=6)
    context, weights = LuongAttention("concat", units=3)(query, memory)
    assert context.shape == (BATCH, TARGET_LEN, DIM) and weights.shape == (BATCH, TARGET_LEN, 5)
    context, _ = LuongAttention("general")(query, memory)  # W_a: memory_dim -> query_dim
    assert context.shape == (BATCH, TARGET_LEN, DIM)
    with pytest.raises(ValueError, match="units=6"):
        LuongAttention("general", units=DIM)(query, memory)
    with pytest.raises(ValueError, match="same size"):
        LuongAttention("dot")(query, memory)
    with pytest.raises(ValueError, match="score"):
        LuongAttention("location")


@pytest.mark.parametrize("use_query_mask", [False, True])
@pytest.mark.parametrize("scale", [False, True])
def test_dot_equals_keras_attention(scale, use_query_mask):
    query, memory = _inputs(3)
    query_mask = np.array([[1, 1, 0], [1, 1, 1]], dtype=bool) if use_query_mask else None
    ours = LuongAttention("dot", scale=scale)
    context, weights = ours(query, memory, memory_mask=MEMORY_MASK, query_mask=query_mask)
    keras_attention = keras.layers.Attention(use_scale=scale)
    expected_context, expected_weights = keras_attention(
        [query, memory], mask=[query_mask, MEMORY_MASK], return_attention_scores=True
    )
    np.testing.assert_allclose(np.asarray(context), np.asarray(expected_context), atol=1e-6)
    np.testing.assert_allclose(np.asarray(weights), np.asarray(expected_weights), atol=1e-6)
    # Keras' list form of the mask gives the same as the named arguments.
    context_from_list = ours(query, memory, mask=[query_mask, MEMORY_MASK],
                             return_attention_scores=False)
    np.testing.assert_allclose(np.asarray(context_from_list), np.asarray(context), atol=0)


@pytest.mark.parametrize("query_rank", [2, 3])
@pytest.mark.parametrize("score", ["dot", "general", "concat"])
def test_project_memory_matches_in_call_projection(score, query_rank):
    query, memory = _inputs(query_rank)
    layer = LuongAttention(score, units=DIM)
    keys = layer.project_memory(memory)  # before the first call: needs `units` (given)
    with_keys = layer(query, memory, memory_mask=MEMORY_MASK, projected_memory=keys)
    without = layer(query, memory, memory_mask=MEMORY_MASK)
    for a, b in zip(with_keys, without, strict=True):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), atol=1e-6)
    if score == "dot":
        assert keys is memory
    else:
        np.testing.assert_allclose(
            np.asarray(keys), memory @ np.asarray(layer.memory_layer.kernel), atol=1e-5
        )


def test_project_memory_before_build_without_units_raises():
    _, memory = _inputs(3)
    with pytest.raises(ValueError, match="units"):
        LuongAttention("general").project_memory(memory)


def test_implicit_keras_mask_from_embedding():
    tokens = keras.Input((SOURCE_LEN,), dtype="int32")
    memory = keras.layers.Embedding(10, DIM, mask_zero=True)(tokens)
    query = keras.Input((DIM,))
    context, weights = LuongAttention("dot", name="attention")(query, memory)
    model = keras.Model([query, tokens], [context, weights])
    ids = np.array([[3, 4, 5, 0, 0], [1, 2, 3, 4, 5]])
    _, out_weights = model([np.ones((BATCH, DIM), "float32"), ids])
    out_weights = np.asarray(out_weights)
    assert np.all(out_weights[~MEMORY_MASK] == 0.0)
    np.testing.assert_allclose(out_weights.sum(-1), 1.0, atol=1e-6)


@pytest.mark.parametrize("score,scale", [("dot", True), ("general", False), ("concat", True)])
def test_config_round_trip_and_keras_file(score, scale, tmp_path):
    layer = LuongAttention(score, scale=scale, units=3 if score == "concat" else None,
                           name="attention")
    config = layer.get_config()
    assert {config["score"], config["scale"]} == {score, scale}
    clone = LuongAttention.from_config(config)
    assert clone.get_config() == config

    def after_build():
        if scale:
            layer.scale_weight.assign(1.7)

    check_attention_keras_file(layer, *_inputs(3), MEMORY_MASK, tmp_path, after_build)
