"""Bahdanau attention twins: names, attention weights, learning (the checks both attention twins
pass: test_attention_twins.py)."""

import pytest

from keras_nmt.models.bahdanau.functional import BahdanauSeq2SeqFunctional
from keras_nmt.models.bahdanau.subclassed import BahdanauSeq2SeqSubclassed
from keras_nmt.workshop.copy_weights_by_layer_name import _leaf_layers_by_name
from tests.models.attention_twins import AttentionTwins, learned_dates

TWINS = AttentionTwins(BahdanauSeq2SeqFunctional, BahdanauSeq2SeqSubclassed)
CONFIGS = {
    "plain": dict(),
    "deep_output": dict(deep_output=True, attention_units=6),
}
APIS = ["functional", "subclassed"]


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
def test_attention_ignores_padded_sources_and_sums_to_one(api):
    model = TWINS.model(api, CONFIGS["plain"])
    memory = TWINS.check_attention_weights(model)
    assert tuple(memory["encoder_outputs"].shape) == (3, 6, 16)  # 2 * units
    assert tuple(memory["keys"].shape) == (3, 6, 8)
    assert set(model.initial_state(memory)) == {"states"}


@pytest.mark.slow
def test_learns_dates():
    # 3,000 pairs (not the helper's 4,000): exact match 0.73, 0.755, 0.735 with initial weights
    # of seeds 0, 1, 2 (with 6 epochs at 3e-3, in 1.5 times the steps: 0.795, 0.78, 0.81; at
    # the bar with 2,500 pairs: 0.49-0.58).
    score, _, _ = learned_dates(BahdanauSeq2SeqFunctional, train_size=3000)
    print("bahdanau exact match", score)
    assert score > 0.5
