import pytest

from keras_nmt.workshop.comparison.throughput import tokens_per_second


def test_tokens_per_second_on_hand_made_numbers():
    assert tokens_per_second(12_000, 3, 9.0) == pytest.approx(4000.0)
    assert tokens_per_second(500, 1, 0.25) == pytest.approx(2000.0)
    assert tokens_per_second(None, 3, 9.0) is None
    assert tokens_per_second(100, 3, 0.0) is None
