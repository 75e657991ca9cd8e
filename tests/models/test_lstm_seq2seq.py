"""LSTM encoder-decoder twins: parity, inference, masking, scheduled sampling, saving."""

import keras
import numpy as np
import pytest

from keras_nmt.models.lstm.functional import LstmSeq2SeqFunctional
from keras_nmt.models.lstm.subclassed import LstmSeq2SeqSubclassed
from keras_nmt.special_ids import START_ID
from keras_nmt.training.masked_sparse_cross_entropy import MaskedSparseCrossEntropy
from keras_nmt.workshop.copy_weights_by_layer_name import copy_weights_by_layer_name

SOURCE_VOCAB, TARGET_VOCAB = 19, 13
CONFIGS = [
    {},
    {"num_layers": 2, "bidirectional": True, "reverse_source": True, "dropout": 0.2},
]


def padded_batch(seed=0, batch=4, source_len=7, target_len=6):
    rng = np.random.default_rng(seed)
    source = rng.integers(4, SOURCE_VOCAB, (batch, source_len)).astype("int32")
    target = rng.integers(4, TARGET_VOCAB, (batch, target_len)).astype("int32")
    target[:, 0] = START_ID
    for row in range(batch):  # varied right padding
        source[row, source_len - row :] = 0
        target[row, target_len - row :] = 0
    return {"encoder_tokens": source, "decoder_tokens": target}


def make_twins(**config):
    keras.utils.set_random_seed(0)
    options = dict(embedding_dim=6, units=8, **config)
    functional = LstmSeq2SeqFunctional(SOURCE_VOCAB, TARGET_VOCAB, **options)
    subclassed = LstmSeq2SeqSubclassed(SOURCE_VOCAB, TARGET_VOCAB, **options)
    batch = padded_batch()
    functional(batch)
    subclassed(batch)
    return functional, subclassed, batch


def unrolled_logits(model, batch):
    """Runs decode_step over the ground-truth decoder inputs, one position at a time."""
    memory = model.encode(batch["encoder_tokens"])
    state = model.initial_state(memory, max_length=batch["decoder_tokens"].shape[1])
    steps = []
    for t in range(batch["decoder_tokens"].shape[1]):
        logits, state, attention = model.decode_step(batch["decoder_tokens"][:, t], state, memory)
        assert attention is None
        steps.append(np.asarray(logits))
    return np.stack(steps, axis=1)


# Under JAX (the second `make test` run) the most inclusive configuration only: the others
# differ in layers whose own tests run under JAX, and an eager JAX twin pair takes 10-30 s.
@pytest.mark.parametrize("config", [
    pytest.param(config, marks=[pytest.mark.jax] if config else []) for config in CONFIGS])
def test_twin_parity_both_directions(config):
    functional, subclassed, batch = make_twins(**config)
    real = batch["decoder_tokens"] != 0
    copy_weights_by_layer_name(functional, subclassed)
    np.testing.assert_allclose(
        np.asarray(subclassed(batch))[real], np.asarray(functional(batch))[real], atol=1e-5
    )
    keras.utils.set_random_seed(1)
    fresh = LstmSeq2SeqFunctional.from_config(functional.get_config())
    fresh(batch)
    assert np.abs(np.asarray(fresh(batch)) - np.asarray(functional(batch)))[real].max() > 1e-3
    copy_weights_by_layer_name(subclassed, fresh)
    np.testing.assert_allclose(
        np.asarray(fresh(batch))[real], np.asarray(subclassed(batch))[real], atol=1e-5
    )


@pytest.mark.parametrize("config", CONFIGS)
def test_inference_models_reproduce_training_logits(config):
    functional, subclassed, batch = make_twins(**config)
    real = batch["decoder_tokens"] != 0
    for model in (functional, subclassed):
        np.testing.assert_allclose(
            unrolled_logits(model, batch)[real], np.asarray(model(batch))[real], atol=1e-5
        )


def test_functional_twin_has_separate_inference_models_sharing_weights():
    functional, _, _ = make_twins()
    assert functional.encoder_model.get_layer("source_embedding") is functional.get_layer(
        "source_embedding"
    )
    assert functional.decoder_step_model.get_layer("decoder_lstm_0") is functional.get_layer(
        "decoder_lstm_0"
    )


def test_same_config_and_layer_names():
    functional, subclassed, _ = make_twins(**CONFIGS[1])
    assert functional.get_config() == subclassed.get_config()
    names = {layer.name for layer in functional.layers if layer.weights}
    assert names == {layer.name for layer in subclassed.layers if layer.weights}


@pytest.mark.parametrize("config", CONFIGS)
def test_extra_padding_changes_neither_logits_nor_loss(config):
    functional, subclassed, batch = make_twins(**config)
    padded = {key: np.pad(value, [(0, 0), (0, 3)]) for key, value in batch.items()}
    targets = np.pad(np.roll(batch["decoder_tokens"], -1, axis=1), [(0, 0), (0, 3)])
    targets[:, batch["decoder_tokens"].shape[1] - 1] = 0
    real = batch["decoder_tokens"] != 0
    loss = MaskedSparseCrossEntropy()
    for model in (functional, subclassed):
        logits, padded_logits = np.asarray(model(batch)), np.asarray(model(padded))
        np.testing.assert_allclose(padded_logits[:, : real.shape[1]][real], logits[real], atol=1e-5)
        short = float(loss(targets[:, : real.shape[1]], logits))
        assert float(loss(targets, padded_logits)) == pytest.approx(short, abs=1e-6)


def test_scheduled_sampling_with_p0_feeds_own_predictions():
    _, subclassed, batch = make_twins()
    subclassed.teacher_forcing_probability.assign(0.0)
    logits = np.asarray(subclassed(batch, training=True))
    # A greedy unroll: after START, each input is the previous step's argmax.
    memory = subclassed.encode(batch["encoder_tokens"])
    state = subclassed.initial_state(memory)
    token = batch["decoder_tokens"][:, 0]
    for t in range(batch["decoder_tokens"].shape[1]):
        step_logits, state, _ = subclassed.decode_step(token, state, memory)
        np.testing.assert_allclose(logits[:, t], np.asarray(step_logits), atol=1e-5)
        token = np.argmax(np.asarray(step_logits), axis=-1).astype("int32")
    # ... which differs from teacher forcing on this untrained model.
    subclassed.teacher_forcing_probability.assign(1.0)
    forced = np.asarray(subclassed(batch, training=True))
    assert np.abs(forced - logits).max() > 1e-4


def test_scheduled_sampling_with_p1_equals_functional_twin_in_training_mode():
    functional, subclassed, batch = make_twins()
    copy_weights_by_layer_name(functional, subclassed)
    real = batch["decoder_tokens"] != 0
    np.testing.assert_allclose(
        np.asarray(subclassed(batch, training=True))[real],
        np.asarray(functional(batch, training=True))[real],
        atol=1e-5,
    )


def test_subclassed_trains_the_same_compiled_and_eagerly():
    batch = padded_batch(batch=8)
    targets = np.roll(batch["decoder_tokens"], -1, axis=1)
    targets[:, -1] = 0
    results = []
    for run_eagerly in (False, True):
        _, model, _ = make_twins()
        # SGD, not Adam: Adam turns a 1e-9 gradient (say, on the padding embedding row) into a
        # full learning-rate step, hiding whether both modes compute the same thing.
        model.compile(
            optimizer=keras.optimizers.SGD(0.5),
            loss=MaskedSparseCrossEntropy(),
            run_eagerly=run_eagerly,
        )
        history = model.fit(batch, targets, batch_size=4, epochs=3, shuffle=False, verbose=0)
        results.append((history.history["loss"], model.get_weights()))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-5)
    for compiled, eager in zip(results[0][1], results[1][1], strict=True):
        np.testing.assert_allclose(compiled, eager, atol=1e-5)


@pytest.mark.parametrize("twin", ["functional", "subclassed"])
def test_keras_file_round_trip(tmp_path, twin):
    functional, subclassed, batch = make_twins(**CONFIGS[1])
    model = functional if twin == "functional" else subclassed
    path = tmp_path / "model.keras"
    model.save(path)
    reloaded = keras.models.load_model(path)
    assert type(reloaded) is type(model)
    np.testing.assert_array_equal(np.asarray(reloaded(batch)), np.asarray(model(batch)))
    np.testing.assert_array_equal(unrolled_logits(reloaded, batch), unrolled_logits(model, batch))
