"""Luong attention twins: names, input feeding, attention weights, learning, the initial state
(the checks both attention twins pass: test_attention_twins.py)."""

import keras
import numpy as np
import pytest
from keras import ops

from keras_nmt.models.luong.functional import LuongSeq2SeqFunctional
from keras_nmt.models.luong.subclassed import LuongSeq2SeqSubclassed
from tests.models.attention_twins import AttentionTwins, learned_dates, make_batch

TWINS = AttentionTwins(LuongSeq2SeqFunctional, LuongSeq2SeqSubclassed)
CONFIGS = {
    "general": dict(attention_score="general"),
    "concat_deep": dict(
        attention_score="concat", num_layers=2, bidirectional=True, reverse_source=True
    ),
    "dot": dict(attention_score="dot"),
}
APIS = ["functional", "subclassed"]


def test_twins_share_layer_names_and_config():
    functional, subclassed = TWINS.built(CONFIGS["concat_deep"])
    assert functional.get_config() == subclassed.get_config()
    names = {layer.name for layer in functional.layers if layer.weights}
    assert names == {layer.name for layer in subclassed.layers if layer.weights}
    assert {"attention", "attentional_projection", "decoder_lstm_1", "encoder_lstm_1"} <= names


def test_input_feeding_step_loop_matches_its_own_unrolled_decode():
    keras.utils.set_random_seed(3)
    model = TWINS.make(LuongSeq2SeqSubclassed, input_feeding=True, num_layers=2)
    inputs, real, expected = TWINS.check_unrolled_matches_training(model, seed=3)
    # The first decoder layer reads [E y_{t-1}; h̃_{t-1}].
    assert model.get_layer("decoder_lstm_0").kernel.shape == (8 + 8, 4 * 8)
    # Input feeding changes the computation: without the fed vector, the logits differ.
    no_feed = TWINS.make(LuongSeq2SeqSubclassed, num_layers=2)
    no_feed(inputs)
    assert not np.allclose(ops.convert_to_numpy(no_feed(inputs))[real], expected[real])


def test_functional_twin_rejects_input_feeding():
    with pytest.raises(ValueError, match="input feeding"):
        TWINS.make(LuongSeq2SeqFunctional, input_feeding=True)


@pytest.mark.parametrize("api", APIS)
def test_attention_ignores_padded_sources_and_sums_to_one(api):
    model = TWINS.model(api, CONFIGS["general"])
    memory = TWINS.check_attention_weights(model)
    assert tuple(memory["keys"].shape) == (3, 6, 8)
    assert set(model.initial_state(memory)) == {"states", "attentional"}


@pytest.mark.slow
def test_learns_dates_and_attends_to_the_year():
    from keras_nmt.decoding.loop import decode

    # Exact match 0.79, 0.845, 0.795 and attention inside the year 0.94, 1.0, 1.0 with initial
    # weights of seeds 0, 1, 2 (`train_on_dates`' 4 epochs at 5e-3).
    score, model, source = learned_dates(LuongSeq2SeqFunctional)
    print("luong exact match", score)
    assert score > 0.5

    # Attention: while writing the year (output positions 0-3 of "YYYY-MM-DD"), the argmax
    # source position lies inside the year of the source.
    sources = ["2013/07/21", "1987/11/03", "21 March 2019", "4 June 1968"]
    year_spans = [(0, 4), (0, 4), (9, 13), (7, 11)]
    ids = source.tokenize(sources).to_tensor()
    decoded = decode(model, ids, "greedy", max_length=12, return_attention=True)
    attention = ops.convert_to_numpy(decoded.attention)  # (batch, out_len, src_len)
    inside = [
        start <= attention[row, t].argmax() < stop
        for row, (start, stop) in enumerate(year_spans)
        for t in range(4)
    ]
    print("luong year attention inside the year:", np.mean(inside))
    assert np.mean(inside) >= 0.75


@pytest.mark.parametrize("api", APIS)
@pytest.mark.parametrize("reverse_source", [False, True])
def test_top_decoder_initial_state_is_the_encoder_output_at_the_last_read_source(
    api, reverse_source
):
    # Issue 20: the decoder's top layer starts from the encoder output of the last source token
    # read (the last real one, or the first with a reversed source), padding skipped. That state
    # is also one of the attention keys, the position trained models collapse onto.
    model = TWINS.model(api, dict(attention_score="general", num_layers=2,
                                  reverse_source=reverse_source))
    inputs, _ = make_batch()
    memory = model.encode(ops.convert_to_tensor(inputs["encoder_tokens"]))
    outputs = ops.convert_to_numpy(memory["encoder_outputs"])
    top_h = ops.convert_to_numpy(memory["encoder_states"][-2])
    lengths = (inputs["encoder_tokens"] != 0).sum(axis=1)
    last_read = np.zeros_like(lengths) if reverse_source else lengths - 1
    np.testing.assert_allclose(top_h, outputs[np.arange(len(lengths)), last_read], atol=1e-6)
