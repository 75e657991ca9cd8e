"""CharTokenizer: exact round trips on the real corpora, vocabulary rules."""

import tensorflow as tf

from keras_nmt.special_ids import NUM_RESERVED, RESERVED_TOKENS, UNK_ID
from keras_nmt.text import CharTokenizer
from tests.text.helpers import read_columns, strings


def test_round_trip_every_test_sentence(shared_data):
    for name in ("spa-eng.test.tsv", "fra-eng.test.tsv"):
        english, other = read_columns(shared_data / name)
        texts = list(english) + list(other)
        tok = CharTokenizer().build(texts)
        ids = tok.tokenize(texts)
        assert ids.dtype == tf.int32 and ids.shape[0] == len(texts)
        flat = ids.flat_values.numpy()
        assert flat.min() >= NUM_RESERVED  # every character was seen: no PAD/UNK/START/END
        assert strings(tok.detokenize(ids)) == strings(tok.normalize(texts)), name
        # One id per code point of the normalized text.
        lengths = [len(s) for s in strings(tok.normalize(texts))]
        assert ids.row_lengths().numpy().tolist() == lengths


def test_vocabulary_order_min_count_and_max_vocab():
    tok = CharTokenizer().build(["aaab", "bc"])
    assert tok.vocabulary == (*RESERVED_TOKENS, "a", "b", "c")
    assert tok.vocab_size == 7
    rare = CharTokenizer(min_count=2).build(["aaab", "bc"])
    assert rare.vocabulary[NUM_RESERVED:] == ("a", "b")
    assert rare.tokenize(["abc"]).to_list() == [[4, 5, UNK_ID]]
    small = CharTokenizer(max_vocab=5).build(["aaab", "bc"])
    assert small.vocab_size == 5 and small.vocabulary[-1] == "a"


def test_unknown_character_detokenizes_as_marker():
    tok = CharTokenizer().build(["abc"])
    ids = tok.tokenize(["abz"])
    assert ids.to_list() == [[4, 5, UNK_ID]]
    assert strings(tok.detokenize(ids)) == ["ab\u2047"]
