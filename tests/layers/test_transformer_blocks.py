"""Transformer encoder/decoder blocks and the cached attention: masks, causality, the KV cache."""

import keras
import numpy as np
import pytest
from keras import ops

from keras_nmt.layers.attention import MultiHeadAttention
from keras_nmt.layers.transformer_decoder_block import TransformerDecoderBlock
from keras_nmt.layers.transformer_encoder_block import TransformerEncoderBlock

D_MODEL, HEADS, FF = 16, 2, 32
RNG = np.random.default_rng(0)


def numpy(x):
    return ops.convert_to_numpy(x)


def random_hidden(batch, length):
    return RNG.normal(size=(batch, length, D_MODEL)).astype("float32")


@pytest.mark.parametrize("pre_norm", [False, True])
def test_encoder_block_ignores_padded_positions(pre_norm):
    keras.utils.set_random_seed(1)
    block = TransformerEncoderBlock(D_MODEL, HEADS, FF, dropout=0.1, pre_norm=pre_norm)
    x = random_hidden(2, 5)
    mask = np.array([[True, True, True, False, False], [True, True, True, True, True]])
    out = numpy(block(x, mask=mask))
    garbage = x.copy()
    garbage[0, 3:] = 100.0  # padded positions of row 0
    out_garbage = numpy(block(garbage, mask=mask))
    np.testing.assert_allclose(out_garbage[0, :3], out[0, :3], atol=1e-5)
    np.testing.assert_allclose(out_garbage[1], out[1], atol=1e-6)
    # Inference mode is deterministic; training mode applies dropout.
    assert not np.allclose(numpy(block(x, mask=mask, training=True)), out)
    assert block.compute_mask(x, mask) is mask


def test_encoder_block_config_round_trip():
    block = TransformerEncoderBlock(D_MODEL, HEADS, FF, dropout=0.2, pre_norm=True, name="enc")
    config = block.get_config()
    assert {k: config[k] for k in ("d_model", "num_heads", "ff_dim", "dropout", "pre_norm")} == {
        "d_model": D_MODEL,
        "num_heads": HEADS,
        "ff_dim": FF,
        "dropout": 0.2,
        "pre_norm": True,
    }
    assert TransformerEncoderBlock.from_config(config).get_config() == config
    with pytest.raises(ValueError, match="divisible"):
        TransformerEncoderBlock(15, 2, FF)


@pytest.mark.parametrize("pre_norm", [False, True])
def test_decoder_block_cached_steps_equal_full_recompute(pre_norm):
    """Step mode with the fixed-size cache == the whole-sequence call on the prefix, every step."""
    keras.utils.set_random_seed(2)
    block = TransformerDecoderBlock(D_MODEL, HEADS, FF, dropout=0.1, pre_norm=pre_norm)
    batch, tgt_len, src_len, max_length = 2, 6, 4, 8
    x = random_hidden(batch, tgt_len)
    memory = random_hidden(batch, src_len)
    memory_mask = np.array([[True, True, True, False], [True, True, True, True]])
    full, full_heads = block(x, memory, memory_mask=memory_mask, return_attention_scores=True)
    full_attention = ops.mean(full_heads, axis=1)  # (batch, tgt_len, src_len)
    # The self-attention keys of every position: what a cache of the whole sequence holds.
    full_keys, _ = block.self_attention.project_key_value(
        block.self_attention_norm(x) if pre_norm else x
    )
    assert tuple(full_keys.shape) == (batch, HEADS, tgt_len, D_MODEL // HEADS)

    cross_key, cross_value = block.cross_attention_cache(memory)
    key_cache = value_cache = ops.zeros((batch, HEADS, max_length, D_MODEL // HEADS))
    for t in range(tgt_len):
        step = np.full((batch,), t, "int32")
        y, heads, key_cache, value_cache = block.step(
            x[:, t : t + 1], step, key_cache, value_cache, cross_key, cross_value, memory_mask
        )
        attention = ops.mean(heads, axis=1)  # (batch, 1, src_len)
        assert tuple(key_cache.shape) == (batch, HEADS, max_length, D_MODEL // HEADS)
        if t > 0:  # (a one-token prefix is `full[:, 0]`, checked below)
            prefix = block(x[:, : t + 1], memory, memory_mask=memory_mask)
            np.testing.assert_allclose(numpy(y)[:, 0], numpy(prefix)[:, t], atol=1e-5)
        np.testing.assert_allclose(numpy(y)[:, 0], numpy(full)[:, t], atol=1e-5)
        np.testing.assert_allclose(numpy(attention)[:, 0], numpy(full_attention)[:, t], atol=1e-6)
        np.testing.assert_allclose(numpy(heads).mean(axis=1), numpy(attention), atol=1e-6)
        # The cache holds the keys of positions 0..t and zeros after.
        cached = numpy(key_cache)
        np.testing.assert_allclose(cached[:, :, : t + 1], numpy(full_keys)[:, :, : t + 1],
                                   atol=1e-5)
        assert not cached[:, :, t + 1 :].any()
    # Cross-attention weights: rows sum to 1 and padded source positions get none.
    attention = numpy(full_attention)
    np.testing.assert_allclose(attention.sum(-1), 1.0, atol=1e-5)
    assert np.all(attention[0, :, 3] == 0.0)


def test_decoder_block_is_causal():
    keras.utils.set_random_seed(3)
    block = TransformerDecoderBlock(D_MODEL, HEADS, FF, dropout=0.0)
    x = random_hidden(2, 5)
    memory = random_hidden(2, 3)
    out = numpy(block(x, memory))
    changed = x.copy()
    changed[:, 3] += 5.0
    out_changed = numpy(block(changed, memory))
    np.testing.assert_allclose(out_changed[:, :3], out[:, :3], atol=1e-6)
    assert not np.allclose(out_changed[:, 3:], out[:, 3:])


def test_decoder_block_config_round_trip():
    block = TransformerDecoderBlock(D_MODEL, HEADS, FF, dropout=0.0, pre_norm=True, name="dec")
    config = block.get_config()
    assert config["pre_norm"] is True and config["ff_dim"] == FF
    assert TransformerDecoderBlock.from_config(config).get_config() == config


def test_cache_rows_write_at_their_own_step():
    keras.utils.set_random_seed(4)
    mha = MultiHeadAttention(num_heads=HEADS, key_dim=D_MODEL // HEADS)
    query = random_hidden(2, 1)
    mha.build(query.shape, query.shape)
    cache = ops.zeros((2, HEADS, 5, D_MODEL // HEADS))
    step = np.array([1, 3], "int32")
    seen = np.arange(5)[None, None, :] <= step[:, None, None]  # (2, 1, 5)
    _, key_cache, value_cache = mha(
        query,
        query,
        attention_mask=seen,
        key_cache=cache,
        value_cache=cache,
        cache_update_index=step,
    )
    new_key, new_value = mha.project_key_value(query)
    key_cache, value_cache = numpy(key_cache), numpy(value_cache)
    np.testing.assert_allclose(key_cache[0, :, 1], numpy(new_key)[0, :, 0], atol=1e-6)
    np.testing.assert_allclose(value_cache[1, :, 3], numpy(new_value)[1, :, 0], atol=1e-6)
    written = np.abs(key_cache).sum(axis=(1, 3)) > 0
    np.testing.assert_array_equal(written, [[0, 1, 0, 0, 0], [0, 0, 0, 1, 0]])


def test_a_cached_step_attends_over_the_written_positions_whatever_the_cache_size():
    # Under TensorFlow a step attends over positions 0..max(step) only (rounded up to a block of
    # 8), so a longer cache (its unwritten positions masked, here holding noise) gives the same
    # output and weights over 8 positions; under JAX (static shapes) over the whole cache.
    keras.utils.set_random_seed(5)
    mha = MultiHeadAttention(num_heads=HEADS, key_dim=D_MODEL // HEADS)
    query = random_hidden(2, 1)
    mha.build(query.shape, query.shape)
    step = np.array([1, 3], "int32")
    written = RNG.normal(size=(2, HEADS, 4, D_MODEL // HEADS)).astype("float32")
    outputs = []
    for size in (5, 40):
        noise = RNG.normal(size=(2, HEADS, size - 4, D_MODEL // HEADS)).astype("float32")
        cache = np.concatenate([written, noise], axis=2)
        seen = np.arange(size)[None, None, :] <= step[:, None, None]  # (2, 1, size)
        output, scores, _, _ = mha(query, query, attention_mask=seen, key_cache=cache,
                                   value_cache=cache, cache_update_index=step,
                                   return_attention_scores=True)
        attended = min(8, size) if keras.backend.backend() == "tensorflow" else size
        assert tuple(scores.shape) == (2, HEADS, 1, attended)
        outputs.append(numpy(output))
    np.testing.assert_allclose(outputs[0], outputs[1], atol=1e-6)


def test_attention_equals_keras_multi_head_attention():
    keras.utils.set_random_seed(5)
    query, value = random_hidden(3, 4), random_hidden(3, 6)
    mask = RNG.random((3, 4, 6)) < 0.7
    mask[:, :, 0] = True  # no fully masked row
    ours = MultiHeadAttention(num_heads=HEADS, key_dim=D_MODEL // HEADS)
    reference = keras.layers.MultiHeadAttention(num_heads=HEADS, key_dim=D_MODEL // HEADS)
    ours.build(query.shape, value.shape)
    reference.build(query.shape, value.shape)
    reference.set_weights(ours.get_weights())
    np.testing.assert_allclose(
        numpy(ours(query, value, attention_mask=mask)),
        numpy(reference(query, value, attention_mask=mask)),
        atol=1e-5,
    )


@pytest.mark.skipif(keras.backend.backend() != "tensorflow", reason="inspects a TF graph")
def test_projection_gradients_are_not_computed_per_example():
    # Keras' TF einsum made each projection of a static-length batch a broadcasting batched
    # matmul, whose kernel gradient is one (dim, dim) matrix per example, then a sum.
    import tensorflow as tf

    batch, length = 3, 5
    mha = MultiHeadAttention(num_heads=HEADS, key_dim=D_MODEL // HEADS)
    x = tf.constant(random_hidden(batch, length))
    mha.build(x.shape, x.shape)

    @tf.function
    def gradients(x):
        with tf.GradientTape() as tape:
            loss = ops.sum(mha(x, x))
        return tape.gradient(loss, mha.trainable_variables)

    graph = gradients.get_concrete_function(x).graph
    per_example = [
        op.name
        for op in graph.get_operations()
        if op.type.startswith("BatchMatMul")
        and op.outputs[0].shape.as_list() == [batch, D_MODEL, D_MODEL]
    ]
    assert per_example == []
