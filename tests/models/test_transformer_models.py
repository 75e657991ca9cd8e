"""The Transformer twins: parity, cached decoding, causality, padding, saving, training."""

import keras
import numpy as np
import pytest
import tensorflow as tf
from keras import ops

from keras_nmt.decoding.loop import decode
from keras_nmt.models.transformer.functional import TransformerFunctional
from keras_nmt.models.transformer.subclassed import TransformerSubclassed
from keras_nmt.workshop.copy_weights_by_layer_name import copy_weights_by_layer_name

START = 2
SOURCE_VOCAB, TARGET_VOCAB = 19, 21
SMALL = dict(num_layers=2, d_model=16, num_heads=2, ff_dim=32, dropout=0.1, max_length=16)
VARIANTS = {
    "post_norm": {},
    "pre_norm_tied": dict(pre_norm=True, tied_output=True),
    # What imported Marian (OPUS-MT) models use, with an unscaled embedding on top.
    "marian": dict(tied_output=True, output_bias=True, activation="swish", norm_epsilon=1e-5,
                   position_layout="halves", scale_embeddings=False),
}


def numpy(x):
    return ops.convert_to_numpy(x)


def padded_batch(seed=0, batch=3, src_len=6, tgt_len=7):
    """Random ids in [4, vocab) with rows padded (0) to different lengths; decoder rows start
    with START."""
    rng = np.random.default_rng(seed)
    source = rng.integers(4, SOURCE_VOCAB, size=(batch, src_len)).astype("int32")
    target = rng.integers(4, TARGET_VOCAB, size=(batch, tgt_len)).astype("int32")
    target[:, 0] = START
    for row, (src_keep, tgt_keep) in enumerate([(6, 7), (3, 5), (4, 2)][:batch]):
        source[row, src_keep:] = 0
        target[row, tgt_keep:] = 0
    return {"encoder_tokens": source, "decoder_tokens": target}


def build_twins(**overrides):
    keras.utils.set_random_seed(0)
    config = {**SMALL, **overrides}
    shared = config.get("shared_embeddings", False)
    target_vocab = SOURCE_VOCAB if shared else TARGET_VOCAB
    functional = TransformerFunctional(SOURCE_VOCAB, target_vocab, **config)
    subclassed = TransformerSubclassed(SOURCE_VOCAB, target_vocab, **config)
    subclassed.build(None)
    copy_weights_by_layer_name(functional, subclassed)
    return functional, subclassed


@pytest.fixture(scope="module", params=list(VARIANTS))
def twins(request):
    return build_twins(**VARIANTS[request.param])


def logits_of(model, batch):
    return numpy(model(batch, training=False))


@pytest.mark.jax
def test_twins_give_equal_logits_after_copying_weights_both_ways(twins):
    functional, subclassed = twins
    batch = padded_batch()
    expected = logits_of(functional, batch)
    assert expected.shape == (3, 7, functional.target_vocab_size) and expected.dtype == np.float32
    np.testing.assert_allclose(logits_of(subclassed, batch), expected, atol=1e-5)

    # The other direction: perturb the subclassed twin, copy it back into the functional one.
    rng = np.random.default_rng(1)
    for layer in subclassed.layers:
        noise = [rng.normal(0, 0.05, w.shape).astype(w.dtype) for w in layer.get_weights()]
        layer.set_weights([w + n for w, n in zip(layer.get_weights(), noise, strict=True)])
    perturbed = logits_of(subclassed, batch)
    assert not np.allclose(perturbed, expected, atol=1e-3)
    copy_weights_by_layer_name(subclassed, functional)
    np.testing.assert_allclose(logits_of(functional, batch), perturbed, atol=1e-5)
    # Restore equal weights for the other tests of this module.
    copy_weights_by_layer_name(functional, subclassed)


def test_layer_names_and_config_are_the_same_in_both_twins(twins):
    functional, subclassed = twins
    weighted = lambda model: sorted(layer.name for layer in model.layers if layer.weights)  # noqa: E731
    assert weighted(functional) == weighted(subclassed)
    assert {"encoder_block_0", "decoder_block_1"} <= set(weighted(functional))
    assert functional.get_config() == subclassed.get_config()
    assert functional.get_config()["d_model"] == 16
    assert functional.get_config()["name"] == "transformer"
    assert functional.has_attention and subclassed.has_attention
    assert len(functional.weights) == len(subclassed.weights)


def unroll(model, batch):
    """Feeds the ground-truth decoder tokens to decode_step; returns stacked logits, attention."""
    memory = model.encode(batch["encoder_tokens"])
    tgt_len = batch["decoder_tokens"].shape[1]
    state = model.initial_state(memory, max_length=tgt_len + 2)
    logits, attention = [], []
    for t in range(tgt_len):
        step_logits, state, step_attention = model.decode_step(
            batch["decoder_tokens"][:, t], state, memory
        )
        logits.append(numpy(step_logits))
        attention.append(numpy(step_attention))
    return np.stack(logits, axis=1), np.stack(attention, axis=1), memory, state


@pytest.mark.parametrize("which", ["functional", "subclassed"])
def test_decode_step_unrolled_reproduces_training_logits(twins, which):
    model = twins[["functional", "subclassed"].index(which)]
    batch = padded_batch()
    expected = logits_of(model, batch)
    logits, attention, memory, state = unroll(model, batch)
    real = batch["decoder_tokens"] != 0  # padded positions are not decoded
    np.testing.assert_allclose(logits[real], expected[real], atol=1e-5)
    assert logits.dtype == np.float32

    # Memory and state: batch-major leaves with the documented keys and fixed shapes.
    head_dim = 16 // 2
    assert set(memory) == {"encoder_output", "source_mask"} | {
        f"cross_{kind}_{i}" for kind in ("key", "value") for i in range(2)
    }
    np.testing.assert_array_equal(numpy(memory["source_mask"]), batch["encoder_tokens"] != 0)
    caches = {f"{kind}_cache_{i}" for kind in ("key", "value") for i in range(2)}
    assert set(state) == {"step"} | caches
    np.testing.assert_array_equal(numpy(state["step"]), [7, 7, 7])
    assert tuple(state["key_cache_1"].shape) == (3, 2, 9, head_dim)  # (batch, heads, steps, dim)
    # Attention: (batch, src_len) distributions, nothing on source padding.
    assert attention.shape == (3, 7, 6)
    np.testing.assert_allclose(attention.sum(-1), 1.0, atol=1e-5)
    assert np.all(attention[1, :, 3:] == 0.0)


@pytest.mark.jax
@pytest.mark.filterwarnings("ignore:You are using a softmax over axis")
def test_cached_step_equals_full_recompute_of_the_prefix(twins):
    _, subclassed = twins
    batch = padded_batch(seed=2, batch=1, src_len=5, tgt_len=5)
    memory = subclassed.encode(batch["encoder_tokens"])
    state = subclassed.initial_state(memory, max_length=5)
    for t in range(5):
        step_logits, state, _ = subclassed.decode_step(batch["decoder_tokens"][:, t], state, memory)
        prefix = dict(batch, decoder_tokens=batch["decoder_tokens"][:, : t + 1])
        recomputed = logits_of(subclassed, prefix)[:, t]
        np.testing.assert_allclose(numpy(step_logits), recomputed, atol=1e-5)


def test_beam_reordering_of_state_and_memory_keeps_rows(twins):
    functional, _ = twins
    batch = padded_batch()
    _, _, memory, state = unroll(functional, batch)
    order = np.array([2, 0, 0])
    token = np.array([5, 6, 7], "int32")
    reordered_memory = {k: ops.take(v, order, axis=0) for k, v in memory.items()}
    reordered_state = {k: ops.take(v, order, axis=0) for k, v in state.items()}
    logits, _, _ = functional.decode_step(token, state, memory)
    reordered, _, _ = functional.decode_step(token[order], reordered_state, reordered_memory)
    np.testing.assert_allclose(numpy(reordered), numpy(logits)[order], atol=1e-5)


def test_a_future_target_token_changes_no_earlier_logit(twins):
    for model in twins:
        batch = padded_batch(batch=1, tgt_len=7)
        expected = logits_of(model, batch)
        changed = dict(batch, decoder_tokens=batch["decoder_tokens"].copy())
        changed["decoder_tokens"][0, 4] = 5 if changed["decoder_tokens"][0, 4] != 5 else 6
        result = logits_of(model, changed)
        np.testing.assert_array_equal(result[:, :4], expected[:, :4])
        assert not np.allclose(result[:, 4], expected[:, 4])


def test_extra_padding_changes_no_real_logit(twins):
    batch = padded_batch()
    padded = {key: np.pad(ids, ((0, 0), (0, 3))) for key, ids in batch.items()}
    real = batch["decoder_tokens"] != 0
    for model in twins:
        expected = logits_of(model, batch)
        result = logits_of(model, padded)[:, :7]
        np.testing.assert_allclose(result[real], expected[real], atol=1e-5)


@pytest.mark.parametrize("which", ["functional", "subclassed"])
def test_keras_file_round_trip(twins, which, tmp_path):
    model = twins[["functional", "subclassed"].index(which)]
    batch = padded_batch()
    path = tmp_path / f"{which}.keras"
    model.save(path)
    loaded = keras.models.load_model(path)
    assert type(loaded) is type(model)
    assert loaded.get_config() == model.get_config()
    np.testing.assert_array_equal(logits_of(loaded, batch), logits_of(model, batch))
    # The reloaded model decodes too (the functional twin rebuilds its inference models).
    memory = loaded.encode(batch["encoder_tokens"])
    state = loaded.initial_state(memory, max_length=4)
    logits, state, _ = loaded.decode_step(batch["decoder_tokens"][:, 0], state, memory)
    np.testing.assert_allclose(numpy(logits), logits_of(model, batch)[:, 0], atol=1e-5)


def test_shared_embeddings_share_one_matrix_and_need_equal_vocabularies():
    for cls in (TransformerFunctional, TransformerSubclassed):
        with pytest.raises(ValueError, match="equal vocabulary sizes"):
            cls(SOURCE_VOCAB, TARGET_VOCAB, shared_embeddings=True, **SMALL)
    model = TransformerSubclassed(SOURCE_VOCAB, SOURCE_VOCAB, shared_embeddings=True, **SMALL)
    model.build(None)
    assert model.source_embedding is model.target_embedding
    assert "shared_embedding" in [layer.name for layer in model.layers]
    with pytest.raises(ValueError, match="exceeds"):
        model.initial_state({"source_mask": np.ones((1, 3), bool)}, max_length=17)


def test_tied_output_uses_the_target_embedding():
    keras.utils.set_random_seed(5)
    model = TransformerSubclassed(
        SOURCE_VOCAB, TARGET_VOCAB, tied_output=True, **dict(SMALL, num_layers=1)
    )
    model.build(None)
    assert model.output_projection is None
    assert "output_projection" not in [layer.name for layer in model.layers]
    hidden = np.random.default_rng(0).normal(size=(1, 2, 16)).astype("float32")
    table = numpy(model.target_embedding.embeddings)
    np.testing.assert_allclose(numpy(model.project(hidden)), hidden @ table.T, atol=1e-5)


@pytest.mark.parametrize("cls", [TransformerFunctional, TransformerSubclassed])
def test_a_few_training_steps_reduce_the_loss(cls):
    keras.utils.set_random_seed(6)
    model = cls(SOURCE_VOCAB, TARGET_VOCAB, **dict(SMALL, num_layers=1, dropout=0.0))
    rng = np.random.default_rng(3)
    y = rng.integers(4, TARGET_VOCAB, size=(8, 5)).astype("int32")
    y[4:, 3:] = 0  # shorter sentences, padded
    lengths = (y != 0).sum(axis=1)
    decoder = np.concatenate([np.full((8, 1), START, "int32"), y], axis=1)  # [START] + y
    targets = np.concatenate([y, np.zeros((8, 1), "int32")], axis=1)
    targets[np.arange(8), lengths] = 3  # y + [END]
    source = np.where(decoder > 0, (decoder * 3) % SOURCE_VOCAB, 0).astype("int32")
    batch = {"encoder_tokens": source, "decoder_tokens": decoder}
    model.compile(
        optimizer=keras.optimizers.Adam(3e-3),
        loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True, ignore_class=0),
        run_eagerly=True,  # tracing a train function would cost more than these few steps
    )
    losses = [float(model.train_on_batch(batch, targets)) for _ in range(6)]
    assert losses[-1] < losses[0] - 0.1, losses


@pytest.fixture(scope="module")
def post_norm_twins():
    return build_twins(**VARIANTS["post_norm"])


@pytest.fixture(scope="module")
def long_twins():
    """Twins that can decode past two doublings of their first caches (16 -> 32 -> 64)."""
    return build_twins(max_length=40)


@pytest.fixture(scope="module")
def long_one_layer_twins():
    """`long_twins` of one layer, for the long decodings: every layer's caches grow alike (two
    layers' growth: the test after), and a Python step of two layers costs twice one's."""
    return build_twins(max_length=40, num_layers=1)


@pytest.fixture(scope="module")
def full_size_decodings():
    """`{(long, traced, strategy): [tokens, lengths, scores]}` decoded with full-size caches,
    filled by the first twin to need each one."""
    return {}


# One variant: the norms' placement, tied outputs or Marian's activation change no cache shape
# (each variant's cached steps are checked against full recomputation above).
# Long: limits 1.0 * (6, 3, 4) + 30, so the caches start at 16 positions and grow twice (an
# untrained model rarely ends a sentence early: the lengths are checked to pass 32).
@pytest.mark.tensorflow  # under JAX caches stay static (jax.jit needs concrete shapes)
@pytest.mark.parametrize("which", ["functional", "subclassed"])
@pytest.mark.parametrize("traced", [False, True])
@pytest.mark.parametrize("long", [False, True])
def test_caches_of_the_batchs_own_length_decode_as_full_size_ones(
    post_norm_twins, long_one_layer_twins, full_size_decodings, which, traced, long
):
    twins = long_one_layer_twins if long else post_norm_twins
    model = twins[0] if which == "functional" else twins[1]
    source = padded_batch()["encoder_tokens"]  # limits 1.0 * (6, 3, 4) + 2 < max_length 16
    options = dict(max_length=40 if long else 16, max_length_a=1.0,
                   max_length_b=30.0 if long else 2.0)

    def run(strategy, batch_cache, **more):
        def decode_ids(ids):
            result = decode(model, ids, strategy, batch_cache=batch_cache, **options, **more)
            return result.tokens, result.lengths, result.scores

        if traced:  # dynamic batch and length, as in the Translator
            decode_ids = tf.function(decode_ids, autograph=False, input_signature=[
                tf.TensorSpec([None, None], tf.int32)])
        return [numpy(x) for x in decode_ids(tf.constant(source))]

    for strategy, more in (("greedy", {}), ("beam", {"beam_size": 3})):
        # The twins hold the same weights and give the same logits: the full-size decoding of
        # one (the first to run) is the other's reference too, in the same mode.
        key = (long, traced, strategy)
        if key not in full_size_decodings:
            full_size_decodings[key] = run(strategy, False, **more)
        short, full = run(strategy, True, **more), full_size_decodings[key]
        np.testing.assert_array_equal(short[0], full[0])
        np.testing.assert_array_equal(short[1], full[1])
        np.testing.assert_allclose(short[2], full[2], atol=1e-5)
        if long:
            assert short[1].max() > 32, short[1]


@pytest.mark.tensorflow  # under JAX caches stay static (jax.jit needs concrete shapes)
@pytest.mark.parametrize("which", ["functional", "subclassed"])
@pytest.mark.parametrize("traced", [False, True])
def test_caches_sized_by_a_tensor_start_at_16_positions_and_double_when_full(
    long_twins, which, traced
):
    model = long_twins[0] if which == "functional" else long_twins[1]
    source = padded_batch()["encoder_tokens"]

    # Eager: 34 steps from step 0. Traced: 4 steps from step 14 (tracing each step costs
    # seconds), across the first doubling.
    first, steps = (14, 4) if traced else (0, 34)

    def cache_lengths(ids):  # the cache length at the start and after each step
        memory = model.encode(ids)
        # 40, but from the data, as the batch's longest limit is (not a constant of the graph)
        state = model.initial_state(memory, ops.max(ids) * 0 + 40)
        state["step"] = state["step"] + first
        lengths = [ops.shape(state["key_cache_0"])[2]]
        token = ops.full((ops.shape(ids)[0],), START, dtype="int32")
        for _ in range(steps):
            _, state, _ = model.decode_step(token, state, memory)
            lengths.append(ops.shape(state["value_cache_1"])[2])
        return ops.stack(lengths)

    if traced:
        cache_lengths = tf.function(cache_lengths, autograph=False, input_signature=[
            tf.TensorSpec([None, None], tf.int32)])
    lengths = numpy(cache_lengths(tf.constant(source))).tolist()
    # Step s writes position s: 16 positions before the steps and after steps 0-15, 32 after
    # steps 16-31, then 64.
    expected = [16] * 17 + [32] * 16 + [64] * 2
    assert lengths == expected[first:first + steps + 1]
    full = model.initial_state(model.encode(source), 40)  # a python length: all of it, fixed
    assert ops.shape(full["key_cache_0"])[2] == 40
    # A length TensorFlow knows while tracing would stay fixed in a graph loop: all of it too.
    known = tf.function(lambda ids: model.initial_state(model.encode(ids), tf.constant(40)))
    assert known.get_concrete_function(tf.TensorSpec([None, None], tf.int32)).structured_outputs[
        "key_cache_0"].shape[2] == 40
