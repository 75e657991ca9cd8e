"""The checks both recurrent attention twins pass, Bahdanau's and Luong's: parity with weights
copied both ways, the unrolled decode step, extra padding, the `.keras` file, compiled against
eager training and teacher forcing probability 0. Each model's own checks are in its module."""

import pytest

from tests.models import test_bahdanau_seq2seq as bahdanau
from tests.models import test_luong_seq2seq as luong

MODELS = {"bahdanau": bahdanau, "luong": luong}
# The configuration of the single-model checks: each model's richest.
RICHEST = {"bahdanau": "deep_output", "luong": "concat_deep"}
# Constructor options of the training checks. Without input feeding, Luong's step loop runs only
# the LSTM cells and the attention comes after it (inside the loop only for a fed prediction):
# both paths are checked.
TRAINING = [("bahdanau", {"deep_output": True}), ("luong", {"input_feeding": False}),
            ("luong", {"input_feeding": True})]
APIS = ["functional", "subclassed"]


@pytest.fixture(scope="module")
def richest():
    """`richest(name, api)`: that twin of `name`'s richest configuration. The pair is built once
    for the module's single-model checks, which only call, unroll and save it (none changes a
    weight)."""
    built = {}

    def model(name, api):
        if name not in built:
            built[name] = MODELS[name].TWINS.built(MODELS[name].CONFIGS[RICHEST[name]])
        return built[name][APIS.index(api)]

    return model


# Under JAX (the second `make test` run) the richest configuration only: the others differ in
# layers whose own tests run under JAX, and an eager JAX twin pair takes 10-30 s.
@pytest.mark.parametrize("name, config", [
    pytest.param(name, config, marks=[pytest.mark.jax] if config == RICHEST[name] else [])
    for name in MODELS for config in MODELS[name].CONFIGS])
def test_twins_compute_the_same_logits_with_weights_copied_both_ways(name, config):
    MODELS[name].TWINS.check_parity_both_ways(MODELS[name].CONFIGS[config])


@pytest.mark.parametrize("name", MODELS)
@pytest.mark.parametrize("api", APIS)
def test_unrolled_decode_step_reproduces_training_logits(name, api, richest):
    MODELS[name].TWINS.check_unrolled_matches_training(richest(name, api))


@pytest.mark.parametrize("name", MODELS)
@pytest.mark.parametrize("api", APIS)
def test_extra_padding_changes_no_logits_at_real_positions(name, api, richest):
    MODELS[name].TWINS.check_extra_padding(richest(name, api))


@pytest.mark.parametrize("name", MODELS)
@pytest.mark.parametrize("api", APIS)
def test_keras_file_round_trip_gives_identical_outputs(name, api, richest, tmp_path):
    MODELS[name].TWINS.check_keras_file_round_trip(richest(name, api), tmp_path)


@pytest.mark.parametrize("name, options", TRAINING)
def test_subclassed_twin_trains_the_same_compiled_and_eagerly(name, options):
    MODELS[name].TWINS.check_compiled_equals_eager(options)


@pytest.mark.parametrize("name, options", TRAINING)
def test_teacher_forcing_probability_zero_feeds_the_models_own_predictions(name, options):
    MODELS[name].TWINS.check_p0_feeds_own_predictions(options)
