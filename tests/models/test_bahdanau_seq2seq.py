"""Bahdanau attention twins: parity, inference, masking, saving, scheduled sampling, learning."""

import pytest

from keras_nmt.models.bahdanau_seq2seq_functional import BahdanauSeq2SeqFunctional
from keras_nmt.models.bahdanau_seq2seq_subclassed import BahdanauSeq2SeqSubclassed
from keras_nmt.models.copy_weights_by_layer_name import _leaf_layers_by_name
from tests.models.attention_twins import AttentionTwins, exact_match, train_on_dates

TWINS = AttentionTwins(BahdanauSeq2SeqFunctional, BahdanauSeq2SeqSubclassed)
CONFIGS = {
    "plain": dict(),
    "deep_output": dict(deep_output=True, attention_units=6),
}
APIS = ["functional", "subclassed"]


# Under JAX (the second `make test` run) the most inclusive configuration only: the others
# differ in layers whose own tests run under JAX, and an eager JAX twin pair takes 10-30 s.
@pytest.mark.parametrize("config", [
    pytest.param(name, marks=[pytest.mark.jax] if name == "deep_output" else [])
    for name in CONFIGS])
def test_twins_compute_the_same_logits_with_weights_copied_both_ways(config):
    TWINS.check_parity_both_ways(CONFIGS[config])


def test_twins_share_layer_names_and_config():
    functional, subclassed = TWINS.built(CONFIGS["deep_output"])
    assert functional.get_config() == subclassed.get_config()
    names = set(_leaf_layers_by_name(functional))
    assert names == set(_leaf_layers_by_name(subclassed))
    assert {"attention", "decoder_lstm_0", "bridge_h", "bridge_c", "output_hidden"} <= names
    # The functional twin's recurrent layer holds the very cell and attention it steps through.
    rnn = functional.get_layer("decoder_rnn")
    assert (rnn.cell.name, rnn.attention.name) == ("decoder_lstm_0", "attention")
    assert rnn.cell is functional.decoder_step_model.get_layer("decoder_rnn").cell
    assert rnn.attention.units == 6


@pytest.mark.parametrize("api", APIS)
def test_unrolled_decode_step_reproduces_training_logits(api):
    TWINS.check_unrolled_matches_training(TWINS.model(api, CONFIGS["deep_output"]))


@pytest.mark.parametrize("api", APIS)
def test_attention_ignores_padded_sources_and_sums_to_one(api):
    model = TWINS.model(api, CONFIGS["plain"])
    memory = TWINS.check_attention_weights(model)
    assert tuple(memory["encoder_outputs"].shape) == (3, 6, 16)  # 2 * units
    assert tuple(memory["keys"].shape) == (3, 6, 8)
    assert set(model.initial_state(memory)) == {"states"}


@pytest.mark.parametrize("api", APIS)
def test_extra_padding_changes_no_logits_at_real_positions(api):
    TWINS.check_extra_padding(TWINS.model(api, CONFIGS["deep_output"]))


@pytest.mark.parametrize("api", APIS)
def test_keras_file_round_trip_gives_identical_outputs(api, tmp_path):
    TWINS.check_keras_file_round_trip(TWINS.model(api, CONFIGS["deep_output"]), tmp_path)


def test_subclassed_twin_trains_the_same_compiled_and_eagerly():
    TWINS.check_compiled_equals_eager(dict(deep_output=True))


def test_teacher_forcing_probability_zero_feeds_the_models_own_predictions():
    TWINS.check_p0_feeds_own_predictions(dict(deep_output=True))


@pytest.mark.slow
def test_learns_dates():
    model, source, target, valid_pairs = train_on_dates(BahdanauSeq2SeqFunctional)
    score = exact_match(model, source, target, valid_pairs)
    print("bahdanau exact match", score)
    assert score > 0.5
