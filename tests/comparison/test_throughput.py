import numpy as np
import pytest

from keras_nmt.comparison.throughput import count_target_tokens, tokens_per_second


def test_tokens_per_second_on_hand_made_numbers():
    assert tokens_per_second(12_000, 3, 9.0) == pytest.approx(4000.0)
    assert tokens_per_second(500, 1, 0.25) == pytest.approx(2000.0)
    assert tokens_per_second(None, 3, 9.0) is None
    assert tokens_per_second(100, 3, 0.0) is None


class _Tokenized:
    target_lengths = np.array([3, 5, 1])  # len(y) + 1 per pair


def test_count_target_tokens_counts_words_plus_end():
    assert count_target_tokens(_Tokenized()) == 9


def test_count_matches_the_non_padding_targets_of_the_pipeline():
    from keras_nmt.data.pipeline import make_dataset, tokenize_pairs
    from keras_nmt.text import make_tokenizer

    pairs = [("ab", "xyz"), ("abc", "x"), ("a", "yy"), ("bbbbbb", "zzzzzzzz")]
    tokenizer = make_tokenizer("char").build(["abcxyz"])
    tokenized = tokenize_pairs(pairs, tokenizer, tokenizer, max_length=6)  # drops the last pair
    counted = count_target_tokens(tokenized)
    assert counted == (3 + 1) + (1 + 1) + (2 + 1)
    dataset = make_dataset(tokenized, batch_size=2, shuffle=True, seed=0)
    assert sum(int(np.count_nonzero(targets)) for _, targets in dataset) == counted
