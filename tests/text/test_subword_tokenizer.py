"""SubwordTokenizer: SentencePiece round trips on the real corpora, unknown characters."""

import pytest
import sentencepiece as spm

from keras_nmt.special_ids import END_ID, NUM_RESERVED, RESERVED_TOKENS, START_ID, UNK_ID
from keras_nmt.text import SubwordTokenizer
from tests.text.helpers import TINY_TEXTS, read_columns, strings


@pytest.mark.parametrize("model_type", ["unigram", "bpe"])
def test_round_trip_every_test_sentence(shared_data, model_type):
    for name in ("spa-eng.test.tsv", "fra-eng.test.tsv"):
        english, other = read_columns(shared_data / name)
        texts = list(english) + list(other)
        tok = SubwordTokenizer(vocab_size=1000, model_type=model_type).build(texts)
        assert tok.vocab_size == 1000
        ids = tok.tokenize(texts, add_start=True, add_end=True)
        flat = ids.flat_values.numpy()
        assert (flat != UNK_ID).all() and (flat != 0).all()
        rows = ids.to_list()
        assert {r[0] for r in rows} == {START_ID} and {r[-1] for r in rows} == {END_ID}
        assert strings(tok.detokenize(ids)) == strings(tok.normalize(texts)), name
        # Subwords are shorter than characters.
        assert ids.row_lengths().numpy().sum() < sum(len(t) for t in texts)


def test_ids_match_the_sentencepiece_package():
    tok = SubwordTokenizer(vocab_size=60).build(TINY_TEXTS * 3)
    processor = spm.SentencePieceProcessor(model_proto=tok.model_proto)
    assert [processor.id_to_piece(i) for i in range(NUM_RESERVED)] == list(RESERVED_TOKENS)
    normalized = strings(tok.normalize(TINY_TEXTS))
    assert tok.tokenize(TINY_TEXTS).to_list() == [processor.encode(s) for s in normalized]


def test_unseen_characters_map_to_unk():
    tok = SubwordTokenizer(vocab_size=60).build(TINY_TEXTS)
    ids = tok.tokenize(["漢字 Tell me 😀!"])
    assert ids.to_list()[0].count(UNK_ID) == 2
    assert strings(tok.detokenize(ids)) == ["\u2047 Tell me \u2047 !"]


def test_small_corpus_gives_smaller_vocabulary_and_bad_type_fails():
    tok = SubwordTokenizer(vocab_size=5000).build(TINY_TEXTS)
    assert NUM_RESERVED < tok.vocab_size < 5000
    assert tok.get_config()["vocab_size"] == 5000
    with pytest.raises(ValueError, match="model_type"):
        SubwordTokenizer(model_type="wordpiece")


def test_survives_set_random_seed():
    # tf.random.set_seed clears TensorFlow's eager kernel cache; the SentencePiece resource must
    # not be owned by a cached kernel (it used to vanish: "Resource ..._SentencepieceOp...").
    import keras

    tokenizer = SubwordTokenizer(vocab_size=60).build(["hola que tal", "buenos dias"] * 50)
    before = tokenizer.tokenize(["hola que tal"]).to_list()
    keras.utils.set_random_seed(1)
    assert tokenizer.tokenize(["hola que tal"]).to_list() == before
    assert tokenizer.detokenize(tokenizer.tokenize(["hola que tal"])).numpy()[0] == b"hola que tal"
