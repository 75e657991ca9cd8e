"""The ConvS2S twins: parity, padding, causality, incremental decoding against the full pass,
every layer's attention, beam search against exhaustive search, saving, scheduled sampling and
training."""

import keras
import numpy as np
import pytest
from keras import ops

from keras_nmt.decoding.loop import decode
from keras_nmt.models.convs2s.functional import ConvS2SFunctional
from keras_nmt.models.convs2s.subclassed import ConvS2SSubclassed
from keras_nmt.special_ids import END_ID, PAD_ID, START_ID, UNK_ID
from keras_nmt.workshop.copy_weights_by_layer_name import (
    _leaf_layers_by_name,
    copy_weights_by_layer_name,
)
from tests.decoding.fake_models import VOCAB
from tests.decoding.helpers import hypothesis, to_numpy
from tests.decoding.test_beam_search import exhaustive

SOURCE_VOCAB, TARGET_VOCAB = 19, 21
SMALL = dict(embedding_dim=8, channels=12, kernel_size=3, num_layers=2, dropout=0.1,
             max_length=16)
APIS = ["functional", "subclassed"]


def numpy(x):
    return ops.convert_to_numpy(x)


def padded_batch(seed=0, batch=3, src_len=6, tgt_len=7):
    """Random ids in [4, vocab), rows padded (0) to different lengths, decoder rows START first."""
    rng = np.random.default_rng(seed)
    source = rng.integers(4, SOURCE_VOCAB, size=(batch, src_len)).astype("int32")
    target = rng.integers(4, TARGET_VOCAB, size=(batch, tgt_len)).astype("int32")
    target[:, 0] = START_ID
    for row, (src_keep, tgt_keep) in enumerate([(src_len, tgt_len), (3, 5), (4, 2)][:batch]):
        source[row, src_keep:] = PAD_ID
        target[row, tgt_keep:] = PAD_ID
    return {"encoder_tokens": source, "decoder_tokens": target}


def build_twins(seed=0, target_vocab=TARGET_VOCAB, **overrides):
    keras.utils.set_random_seed(seed)
    config = {**SMALL, **overrides}
    functional = ConvS2SFunctional(SOURCE_VOCAB, target_vocab, **config)
    subclassed = ConvS2SSubclassed(SOURCE_VOCAB, target_vocab, **config)
    subclassed.build(None)
    copy_weights_by_layer_name(functional, subclassed)
    return functional, subclassed


@pytest.fixture(scope="module")
def twins():
    return build_twins()


def pick(twins, which):
    return twins[APIS.index(which)]


def logits_of(model, batch):
    return numpy(model(batch, training=False))


@pytest.mark.jax
def test_twins_give_equal_logits_after_copying_weights_both_ways(twins):
    functional, subclassed = twins
    batch = padded_batch()
    expected = logits_of(functional, batch)
    assert expected.shape == (3, 7, TARGET_VOCAB) and expected.dtype == np.float32
    np.testing.assert_allclose(logits_of(subclassed, batch), expected, atol=1e-5)

    # The other direction: perturb the subclassed twin, copy it back into the functional one.
    rng = np.random.default_rng(1)
    for layer in _leaf_layers_by_name(subclassed).values():
        layer.set_weights([w + rng.normal(0, 0.05, w.shape).astype(w.dtype)
                           for w in layer.get_weights()])
    perturbed = logits_of(subclassed, batch)
    assert not np.allclose(perturbed, expected, atol=1e-3)
    copy_weights_by_layer_name(subclassed, functional)
    np.testing.assert_allclose(logits_of(functional, batch), perturbed, atol=1e-5)
    copy_weights_by_layer_name(functional, subclassed)  # equal again for the other tests


def test_layer_names_and_config_are_the_same_in_both_twins(twins):
    functional, subclassed = twins
    names = set(_leaf_layers_by_name(functional))
    assert names == set(_leaf_layers_by_name(subclassed))
    assert {"source_embedding", "encoder_input", "encoder_block_1", "encoder_output",
            "decoder_block_0", "output_hidden", "output_projection"} <= names
    assert functional.get_config() == subclassed.get_config()
    assert functional.get_config()["channels"] == 12
    assert functional.has_attention and subclassed.has_attention


def unroll(model, batch):
    """Feeds the ground-truth decoder tokens to decode_step: stacked logits, attention, state."""
    memory = model.encode(batch["encoder_tokens"])
    tgt_len = batch["decoder_tokens"].shape[1]
    state = model.initial_state(memory, max_length=tgt_len)
    logits, attention = [], []
    for t in range(tgt_len):
        step_logits, state, step_attention = model.decode_step(
            batch["decoder_tokens"][:, t], state, memory)
        logits.append(numpy(step_logits))
        attention.append(numpy(step_attention))
    return np.stack(logits, axis=1), np.stack(attention, axis=1), memory, state


@pytest.mark.jax
@pytest.mark.parametrize("which", APIS)
def test_steps_through_the_windows_equal_the_teacher_forced_pass(twins, which):
    model = pick(twins, which)
    batch = padded_batch()
    expected = logits_of(model, batch)
    logits, attention, memory, state = unroll(model, batch)
    real = batch["decoder_tokens"] != PAD_ID
    np.testing.assert_allclose(logits[real], expected[real], atol=1e-5)
    assert logits.dtype == np.float32

    # The state is each layer's last kernel_size - 1 inputs and the position: fixed shapes.
    assert set(memory) == {"keys", "values", "source_mask"}
    assert tuple(memory["keys"].shape) == (3, 6, 8)
    assert set(state) == {"step", "window_0", "window_1"}
    assert tuple(state["window_1"].shape) == (3, 2, 12)
    np.testing.assert_array_equal(numpy(state["step"]), [7, 7, 7])
    # The step's attention is the mean of the layers' (teacher-forced) attention.
    layers = numpy(model.layer_attention(batch["encoder_tokens"], batch["decoder_tokens"]))
    assert layers.shape == (3, 2, 7, 6)
    np.testing.assert_allclose(attention[real], layers.mean(axis=1)[real], atol=1e-6)
    np.testing.assert_allclose(layers.sum(-1), 1.0, atol=1e-5)
    assert np.all(layers[1, :, :, 3:] == 0.0)  # nothing on source padding
    assert not np.allclose(layers[:, 0], layers[:, 1], atol=1e-3)  # each layer its own


@pytest.mark.jax
def test_padding_does_not_leak_through_the_convolutions(twins):
    """The same sentences padded two ways (to the batch's length and 5 positions more) give
    the same logits at real positions, in both twins."""
    batch = padded_batch(seed=3)
    padded = {key: np.pad(ids, ((0, 0), (0, 5))) for key, ids in batch.items()}
    real = batch["decoder_tokens"] != PAD_ID
    for model in twins:
        expected = logits_of(model, batch)
        np.testing.assert_allclose(logits_of(model, padded)[:, :7][real], expected[real],
                                   atol=1e-5)
        # And a sentence alone, without the others' padding.
        alone = {key: ids[2:3, :4] for key, ids in batch.items()}
        np.testing.assert_allclose(logits_of(model, alone)[0, :2], expected[2, :2], atol=1e-5)


def test_a_future_target_token_changes_no_earlier_logit(twins):
    for model in twins:
        batch = padded_batch(batch=1)
        expected = logits_of(model, batch)
        changed = dict(batch, decoder_tokens=batch["decoder_tokens"].copy())
        changed["decoder_tokens"][0, 4] = 5 if changed["decoder_tokens"][0, 4] != 5 else 6
        result = logits_of(model, changed)
        np.testing.assert_array_equal(result[:, :4], expected[:, :4])
        assert not np.allclose(result[:, 4], expected[:, 4])


def test_beam_reordering_of_state_and_memory_keeps_rows(twins):
    functional, _ = twins
    _, _, memory, state = unroll(functional, padded_batch())
    order = np.array([2, 0, 0])
    token = np.array([5, 6, 7], "int32")
    logits, _, _ = functional.decode_step(token, state, memory)
    reordered, _, _ = functional.decode_step(
        token[order], {k: ops.take(v, order, axis=0) for k, v in state.items()},
        {k: ops.take(v, order, axis=0) for k, v in memory.items()})
    np.testing.assert_allclose(numpy(reordered), numpy(logits)[order], atol=1e-5)


@pytest.mark.jax
@pytest.mark.parametrize("normalization", ["none", "gnmt"])
def test_wide_beam_equals_exhaustive_search(normalization):
    """The oracle of tests/decoding on a real model: a ConvS2S whose vocabulary is the fake
    models' (PAD, UNK and START never produced: their output bias is -1e9)."""
    functional, _ = build_twins(seed=4, target_vocab=VOCAB)
    bias = functional.get_layer("output_projection").bias
    bias.assign(np.where(np.isin(np.arange(VOCAB), [PAD_ID, UNK_ID, START_ID]), -1e9, 0.0)
                .astype("float32"))
    sources = np.array([[4, 5, 6, 7, 4], [7, 9, 0, 0, 0]], dtype=np.int32)
    result = to_numpy(decode(functional, sources, "beam", beam_size=400, n_best=10,
                             normalization=normalization, length_penalty=0.6,
                             max_length=4, max_length_a=0.0, max_length_b=4.0))
    for i, source in enumerate(sources):
        expected = exhaustive(functional, source, 4, normalization)[:10]
        got = [hypothesis(result.tokens[i, j], result.lengths[i, j]) for j in range(10)]
        assert got == [s for _, _, s in expected]
        assert all(s[-1] == END_ID for s in got)
        np.testing.assert_allclose(result.scores[i], [s for s, _, _ in expected], rtol=1e-5)


@pytest.mark.parametrize("which", APIS)
def test_keras_file_round_trip(twins, which, tmp_path):
    model = pick(twins, which)
    batch = padded_batch()
    path = tmp_path / f"{which}.keras"
    model.save(path)
    loaded = keras.models.load_model(path)
    assert type(loaded) is type(model)
    assert loaded.get_config() == model.get_config()
    np.testing.assert_array_equal(logits_of(loaded, batch), logits_of(model, batch))
    np.testing.assert_array_equal(unroll(loaded, batch)[0], unroll(model, batch)[0])


def test_the_initial_state_refuses_more_steps_than_positions(twins):
    for model in twins:
        with pytest.raises(ValueError, match="exceeds"):
            model.initial_state({"source_mask": np.ones((1, 3), bool)}, max_length=17)
    with pytest.raises(ValueError, match="kernel_size=1"):
        ConvS2SSubclassed(5, 5, kernel_size=1)


def test_teacher_forcing_probability_zero_feeds_the_models_own_predictions():
    _, model = build_twins(seed=9, dropout=0.0)
    batch = padded_batch(seed=9)
    model.teacher_forcing_probability.assign(0.0)
    sampled = numpy(model(batch, training=True))
    # A greedy unroll through decode_step: START, then the arg-max of the step before.
    memory = model.encode(batch["encoder_tokens"])
    state = model.initial_state(memory, 7)
    token, greedy = batch["decoder_tokens"][:, 0], []
    for _ in range(7):
        logits, state, _ = model.decode_step(token, state, memory)
        greedy.append(numpy(logits))
        token = np.argmax(greedy[-1], axis=-1).astype("int32")
    np.testing.assert_allclose(sampled, np.stack(greedy, axis=1), atol=1e-5)
    real = batch["decoder_tokens"] != PAD_ID
    assert not np.allclose(sampled[real], logits_of(model, batch)[real], atol=1e-3)
    # Probability 1: the whole-sequence pass, as in the functional twin.
    model.teacher_forcing_probability.assign(1.0)
    np.testing.assert_allclose(numpy(model(batch, training=True)), logits_of(model, batch),
                               atol=1e-6)


# Under JAX too for the subclassed twin: no dropout layer may draw inside its branch or loop.
@pytest.mark.parametrize("which", ["functional", pytest.param("subclassed", marks=pytest.mark.jax)])
def test_a_few_training_steps_reduce_the_loss(which):
    from keras_nmt.training.masked_sparse_cross_entropy import MaskedSparseCrossEntropy

    functional, subclassed = build_twins(seed=6, dropout=0.1)
    model = functional if which == "functional" else subclassed
    if which == "subclassed":
        model.teacher_forcing_probability.assign(0.5)  # the step loop in the graph, and its masks
    batch = padded_batch(seed=7)
    targets = np.where(batch["decoder_tokens"] != PAD_ID,
                       np.roll(batch["decoder_tokens"], -1, axis=1), PAD_ID)
    # The functional twin eagerly (tracing a train step costs more than these steps); the
    # subclassed one compiled: its branch to the step loop and the loop's gradients in a graph.
    model.compile(optimizer=keras.optimizers.Adam(3e-3), loss=MaskedSparseCrossEntropy(),
                  run_eagerly=which == "functional")
    losses = [float(model.train_on_batch(batch, targets)) for _ in range(8)]
    assert losses[-1] < losses[0] - 0.1, losses
