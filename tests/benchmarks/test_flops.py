"""The FLOP counter on hand-computed cases, and the peak matmul measurement."""

import pytest

from keras_nmt.models.flops import attention_pair_flops, dense_flops, lstm_step_flops
from keras_nmt.workshop.benchmarks.flops import forward_flops, training_flops
from keras_nmt.workshop.hardware.peak import measure_peak_matmul


def test_dense_and_lstm_step():
    # Dense 3 -> 5 on 2 tokens: 2 tokens x 3 x 5 multiply-adds = 60 FLOPs.
    assert dense_flops(2, 3, 5) == 60
    # LSTM, input 3, units 2: 4 gates x 2 units x (3 + 2) multiply-adds x 2 = 80 FLOPs per step.
    assert lstm_step_flops(3, 2) == 80
    assert attention_pair_flops(4) == 16  # q.k (2*4) + a*v (2*4)


def test_lstm_model_by_hand():
    config = {"embedding_dim": 3, "units": 2, "num_layers": 1, "target_vocab_size": 7}
    # One sentence, S=4 source and T=5 target tokens:
    # encoder 4 x 80 + decoder 5 x 80 + output 5 x 2*2*7 = 320 + 400 + 140 = 860.
    assert forward_flops("lstm", config, [4], [5]) == 860
    assert training_flops("lstm", config, [4], [5]) == 3 * 860
    # Bidirectional encoder: two directions of 1 unit, 2 x 2*4*1*(3+1) = 64 per source token.
    bidirectional = {**config, "bidirectional": True}
    assert forward_flops("lstm", bidirectional, [4], [5]) == 4 * 64 + 400 + 140


def test_luong_adds_attention_terms():
    base = {"embedding_dim": 3, "units": 2, "num_layers": 1, "target_vocab_size": 7}
    luong = {**base, "attention_score": "general"}
    extra = (
        4 * 5 * attention_pair_flops(2)  # S x T pairs
        + dense_flops(4, 2, 2)  # memory projection W_a h_s
        + dense_flops(5, 4, 2)  # attentional layer on [c; h]
    )
    assert forward_flops("luong", luong, [4], [5]) == forward_flops("lstm", base, [4], [5]) + extra


def test_transformer_by_hand():
    config = {"d_model": 4, "ff_dim": 8, "num_layers": 1, "target_vocab_size": 10}
    s, t, d, f = 3, 2, 4, 8
    encoder = s * (8 * d * d + 4 * d * f) + s * s * 4 * d
    decoder = t * (12 * d * d + 4 * d * f) + s * 4 * d * d + t * t * 4 * d + t * s * 4 * d
    assert forward_flops("transformer", config, [s], [t]) == encoder + decoder + 2 * t * d * 10
    # Two layers double the blocks, not the output projection.
    two = {**config, "num_layers": 2}
    assert forward_flops("transformer", two, [s], [t]) == 2 * (encoder + decoder) + 2 * t * d * 10


def test_convs2s_by_hand():
    config = {"embedding_dim": 2, "channels": 3, "kernel_size": 2, "num_layers": 1,
              "target_vocab_size": 5}
    s, t, e, c, k, v = 4, 3, 2, 3, 2, 5
    convolution = 2 * (k * c) * (2 * c)  # k columns of c in, 2c out (the GLU's two halves)
    encoder = s * (2 * e * c + convolution + 2 * c * e)  # in, convolution, out
    decoder = t * (2 * e * c + convolution + 2 * c * e + 2 * e * c) + s * t * 4 * e
    output = t * (2 * c * e + 2 * e * v)
    assert forward_flops("convs2s", config, [s], [t]) == encoder + decoder + output == 900
    # A second layer adds a convolution per position on each side and an attention.
    two = {**config, "num_layers": 2}
    assert forward_flops("convs2s", two, [s], [t]) == 900 + (s + t) * convolution + t * (
        4 * c * e) + s * t * 4 * e


def test_sentences_add_up_and_errors():
    config = {"embedding_dim": 3, "units": 2, "num_layers": 1, "target_vocab_size": 7}
    one = forward_flops("lstm", config, [4], [5])
    assert forward_flops("lstm", config, [4, 4], [5, 5]) == 2 * one
    with pytest.raises(ValueError, match="no FLOP counter"):
        forward_flops("gru", config, [1], [1])
    with pytest.raises(ValueError, match="target lengths"):
        forward_flops("lstm", config, [1, 2], [1])


def test_peak_matmul_reports_a_rate():
    result = measure_peak_matmul("float32", size=64, repeats=2)
    assert result["dtype"] == "float32" and result["size"] == 64
    assert result["flops_per_second"] > 0
    assert result["seconds"] == pytest.approx(2 * 64**3 / result["flops_per_second"])
