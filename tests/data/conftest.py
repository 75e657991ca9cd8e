"""Fixtures of the data tests: a tiny char tokenizer that needs no vocabulary."""

import pytest
import tensorflow as tf


class TinyCharTokenizer:
    """Lower-case ASCII letters only: ``"a" -> 4``, ``"b" -> 5``, ... (id = code point - 93).

    Follows the tokenizer interface of CONTRIBUTING.md for ``tokenize`` only, so the pipeline
    can be tested before (and independently of) ``keras_nmt.text``.
    """

    vocab_size = 4 + 26

    def __init__(self):
        self.calls = 0

    def tokenize(self, strings, add_start=False, add_end=False):
        self.calls += 1
        ids = tf.strings.unicode_decode(strings, "UTF-8") - 93
        batch = ids.nrows()
        if add_start:
            ids = tf.concat([tf.fill([batch, 1], 2), ids], axis=1)
        if add_end:
            ids = tf.concat([ids, tf.fill([batch, 1], 3)], axis=1)
        return ids


@pytest.fixture
def tiny_tokenizer():
    return TinyCharTokenizer()
