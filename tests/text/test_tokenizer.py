"""The shared contract of all tokenizer kinds: normalization, special ids, graphs, save/load."""

import json

import numpy as np
import pytest
import tensorflow as tf

from keras_nmt.special_ids import END_ID, PAD_ID, START_ID, UNK_ID
from keras_nmt.text import (
    CharTokenizer,
    SubwordTokenizer,
    WordTokenizer,
    load_tokenizer,
    make_tokenizer,
)
from tests.text.helpers import TINY_TEXTS, strings

KINDS = ["char", "word", "subword"]


def _built(kind, texts=TINY_TEXTS, **options):
    if kind == "subword":
        options.setdefault("vocab_size", 60)
    return make_tokenizer(kind, **options).build(texts)


def test_make_tokenizer_kinds_and_errors(tmp_path):
    assert isinstance(make_tokenizer("char"), CharTokenizer)
    assert isinstance(make_tokenizer("word", max_vocab=10), WordTokenizer)
    assert isinstance(make_tokenizer("subword", model_type="bpe"), SubwordTokenizer)
    assert [make_tokenizer(k).kind for k in KINDS] == KINDS
    with pytest.raises(ValueError, match="unknown tokenizer kind"):
        make_tokenizer("bytes")
    with pytest.raises(RuntimeError, match="build"):
        make_tokenizer("char").tokenize(["x"])
    with pytest.raises(FileNotFoundError):
        load_tokenizer(tmp_path)


def test_normalization_rules():
    tok = CharTokenizer()
    got = strings(
        tok.normalize(
            [
                "  Dis-moi\u202f!\u00a0 ",  # NNBSP / NBSP -> space, trimmed
                "ﬁn\u2009de  la\tligne\n",  # NFKC ligature, thin space, tab, newline
                "Cafe\u0301 ÉTÉ",  # combining accent composed by NFKC; case kept
                "",
            ]
        )
    )
    assert got == ["Dis-moi !", "fin de la ligne", "Café ÉTÉ", ""]
    lower = CharTokenizer(lowercase=True)
    assert strings(lower.normalize(["Café ÉTÉ ¿Qué?"])) == ["café été ¿qué?"]
    # normalize is a fixed point.
    once = tok.normalize(TINY_TEXTS + ["ＡＢＣ\u00a0\u00a0x"])
    assert strings(tok.normalize(once)) == strings(once)


def test_rank_must_be_one():
    tok = _built("char")
    with pytest.raises(ValueError, match="batch"):
        tok.tokenize("Tell me.")
    with pytest.raises(ValueError, match="shape"):
        tok.tokenize(tf.constant([["a", "b"]]))
    with pytest.raises(ValueError, match="shape"):
        tok.tokenize(tf.constant("Tell me."))


@pytest.mark.parametrize("kind", KINDS)
def test_reserved_ids_and_wrapping(kind):
    tok = _built(kind)
    assert tok.vocabulary[:4] == ("<pad>", "<unk>", "<s>", "</s>")
    ids = tok.tokenize(TINY_TEXTS, add_start=True, add_end=True)
    assert ids.dtype == tf.int32 and ids.shape.rank == 2 and ids.shape[0] == len(TINY_TEXTS)
    for row in ids.to_list():
        assert row[0] == START_ID and row[-1] == END_ID
        assert PAD_ID not in row and UNK_ID not in row
        assert START_ID not in row[1:] and END_ID not in row[:-1]
    plain = tok.tokenize(TINY_TEXTS)
    assert [r[1:-1] for r in ids.to_list()] == plain.to_list()
    assert tok.tokenize(["Tell me \u2603"]).to_list()[0][-1] == UNK_ID  # unseen snowman
    tokens = tok.ids_to_tokens(tf.constant([[PAD_ID, UNK_ID, START_ID, END_ID, 10**6]]))
    assert tokens.to_list() == [[b"<pad>", b"<unk>", b"<s>", b"</s>", b"<unk>"]]


@pytest.mark.parametrize("kind", KINDS)
def test_detokenize_dense_and_ragged(kind):
    tok = _built(kind)
    texts = ["Tell me.", "¡Qué bonito día!"]
    ids = tok.tokenize(texts, add_start=True, add_end=True)
    dense = ids.to_tensor(default_value=PAD_ID)
    assert strings(tok.detokenize(ids)) == texts
    assert strings(tok.detokenize(dense)) == texts
    assert strings(tok.detokenize(dense.numpy())) == texts
    # Everything after the first END is cut, PAD/START anywhere are dropped.
    row = ids.to_list()[0]
    messy = [[PAD_ID, *row, *ids.to_list()[1][1:]], [START_ID, END_ID, 7], [PAD_ID, PAD_ID]]
    assert strings(tok.detokenize(messy)) == ["Tell me.", "", ""]
    assert strings(tok.detokenize(tf.zeros([0, 3], tf.int32))) == []


@pytest.mark.parametrize("kind", KINDS)
def test_invalid_utf8_and_empty_strings(kind):
    tok = _built(kind)
    batch = tf.constant([b"", b"caf\xc3", b"\xff\xfe Tell me.", b"   "])
    ids = tok.tokenize(batch, add_end=True)
    rows = ids.to_list()
    assert rows[0] == [END_ID] and rows[3] == [END_ID]
    assert UNK_ID in rows[1] and UNK_ID in rows[2]  # U+FFFD is not in the vocabulary
    assert strings(tok.normalize(batch))[1] == "caf\ufffd"
    out = strings(tok.detokenize(ids))
    assert out[0] == "" and out[3] == "" and out[2].endswith("Tell me.")
    assert tok.tokenize([]).shape[0] == 0


@pytest.mark.parametrize("kind", KINDS)
def test_lowercase_option(kind):
    tok = _built(kind, ["HOLA Ça va", "hola ça va"], lowercase=True)
    assert tok.get_config()["lowercase"] is True
    assert tok.tokenize(["HOLA ÇA VA"]).to_list() == tok.tokenize(["hola ça va"]).to_list()
    assert UNK_ID not in tok.tokenize(["HOLA"]).to_list()[0]
    assert strings(tok.detokenize(tok.tokenize(["HOLA Ça"]))) == ["hola ça"]
    assert all(t == t.lower() for t in tok.vocabulary[4:])


@pytest.mark.parametrize("kind", KINDS)
def test_save_and_load(kind, tmp_path):
    tok = _built(kind, lowercase=kind == "word")
    tok.save(tmp_path / kind)
    files = sorted(p.name for p in (tmp_path / kind).iterdir())
    assert files == ["config.json", "subword.model" if kind == "subword" else "vocab.txt"]
    config = json.loads((tmp_path / kind / "config.json").read_text(encoding="utf-8"))
    assert config["kind"] == kind and config["num_ids"] == tok.vocab_size
    again = load_tokenizer(tmp_path / kind)
    assert type(again) is type(tok) and again.get_config() == tok.get_config()
    assert again.vocabulary == tok.vocabulary
    probe = TINY_TEXTS + ["Tell me \u2603 something new."]
    ids = tok.tokenize(probe, add_start=True, add_end=True)
    assert again.tokenize(probe, add_start=True, add_end=True).to_list() == ids.to_list()
    assert strings(again.detokenize(ids)) == strings(tok.detokenize(ids))
    assert again.ids_to_tokens(ids).to_list() == tok.ids_to_tokens(ids).to_list()
    with pytest.raises(ValueError, match="not"):
        (CharTokenizer if kind != "char" else WordTokenizer).load(tmp_path / kind)


def test_vocabulary_file_keeps_space_and_odd_characters(tmp_path):
    texts = ["a b\u2028c\x1cd\x85e\u00ad"]  # separators, control chars, soft hyphen
    tok = CharTokenizer().build(texts)
    again = load_tokenizer(tok.save(tmp_path))
    assert again.vocabulary == tok.vocabulary and " " in tok.vocabulary
    assert again.tokenize(texts).to_list() == tok.tokenize(texts).to_list()
    assert strings(again.detokenize(again.tokenize(texts))) == strings(tok.normalize(texts))


@pytest.mark.parametrize("kind", KINDS)
def test_tokenize_in_tf_function_and_dataset(kind):
    tok = _built(kind)
    expected = tok.tokenize(TINY_TEXTS, add_start=True, add_end=True)

    @tf.function(input_signature=[tf.TensorSpec([None], tf.string)])
    def encode(texts):
        return tok.tokenize(texts, add_start=True, add_end=True)

    assert encode(tf.constant(TINY_TEXTS)).to_list() == expected.to_list()

    @tf.function(input_signature=[tf.RaggedTensorSpec([None, None], tf.int32)])
    def decode(ids):
        return tok.detokenize(ids)

    assert strings(decode(expected)) == strings(tok.detokenize(expected))
    assert strings(decode(expected))[0] == "Tell me."

    dataset = (
        tf.data.Dataset.from_tensor_slices(TINY_TEXTS)
        .batch(3)
        .map(lambda texts: tok.tokenize(texts, add_start=True, add_end=True).to_tensor())
    )
    rows = [list(r[r != PAD_ID]) for batch in dataset for r in batch.numpy()]
    assert rows == expected.to_list()


class _Holder(tf.Module):
    def __init__(self, tokenizer):
        super().__init__()
        self.tokenizer = tokenizer

    @tf.function(input_signature=[tf.TensorSpec([None], tf.string)])
    def encode(self, texts):
        ids = self.tokenizer.tokenize(texts, add_start=True, add_end=True)
        tokens = self.tokenizer.ids_to_tokens(ids)
        return {"ids": ids.to_tensor(default_value=PAD_ID), "tokens": tokens.to_tensor()}

    @tf.function(input_signature=[tf.TensorSpec([None, None], tf.int32)])
    def decode(self, ids):
        return self.tokenizer.detokenize(ids)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("from_directory", [False, True], ids=["built", "loaded"])
def test_saved_model_round_trip(kind, from_directory, tmp_path):
    tok = _built(kind)
    if from_directory:
        tok = load_tokenizer(tok.save(tmp_path / "tok"))
    probe = TINY_TEXTS + ["Tell me \u2603.", ""]
    expected = tok.tokenize(probe, add_start=True, add_end=True).to_tensor(default_value=PAD_ID)
    holder = _Holder(tok)
    tf.saved_model.save(holder, str(tmp_path / "saved"))
    if from_directory:  # the vocabulary must travel inside the SavedModel (as an asset)
        for path in sorted((tmp_path / "tok").iterdir()):
            path.unlink()
        (tmp_path / "tok").rmdir()
        assets = list((tmp_path / "saved" / "assets").iterdir())
        assert kind == "subword" or [p.name for p in assets] == ["vocab.txt"]
    restored = tf.saved_model.load(str(tmp_path / "saved"))
    out = restored.encode(tf.constant(probe))
    np.testing.assert_array_equal(out["ids"].numpy(), expected.numpy())
    assert out["tokens"].numpy()[0, 0] == b"<s>"
    assert strings(restored.decode(out["ids"])) == strings(tok.detokenize(expected))
