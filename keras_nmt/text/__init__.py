"""Tokenizers in TensorFlow ops (tensorflow-text): usable in tf.data, tf.function and SavedModels.

Three kinds share one interface (:class:`Tokenizer`) and the reserved ids of
``keras_nmt.special_ids`` (``PAD=0, UNK=1, START=2, END=3``):

- ``"char"``: :class:`CharTokenizer`, Unicode code points;
- ``"word"``: :class:`WordTokenizer`, words and punctuation marks;
- ``"subword"``: :class:`SubwordTokenizer`, SentencePiece unigram or BPE pieces.

(An imported Marian model's tokenizer, made by ``keras-nmt import``, is the workshop's
`keras_nmt.workshop.marian_tokenizer.MarianTokenizer`, on the same interface.)

Example:
    >>> tok = make_tokenizer("subword", vocab_size=1000).build(texts)
    >>> tok.save("run/tokenizers/source")
    >>> same = load_tokenizer("run/tokenizers/source")
"""

from __future__ import annotations

import os

from keras_nmt.special_ids import TOKENIZER_KINDS
from keras_nmt.text.char_tokenizer import CharTokenizer
from keras_nmt.text.subword_tokenizer import SubwordTokenizer
from keras_nmt.text.tokenizer import Tokenizer, read_config
from keras_nmt.text.word_tokenizer import WordTokenizer

# The kinds built from text (`TOKENIZER_KINDS`).
TOKENIZER_CLASSES: dict[str, type[Tokenizer]] = dict(
    zip(TOKENIZER_KINDS, (CharTokenizer, WordTokenizer, SubwordTokenizer), strict=True))


def make_tokenizer(kind: str, **options) -> Tokenizer:
    """An unbuilt tokenizer of ``kind`` (``"char"``, ``"word"`` or ``"subword"``) made with the
    constructor arguments ``options`` (e.g. ``vocab_size=8000`` for subwords); call
    ``build(texts)`` on it."""
    if kind not in TOKENIZER_KINDS:
        raise ValueError(f"unknown tokenizer kind {kind!r}; expected one of "
                         f"{list(TOKENIZER_KINDS)}")
    return TOKENIZER_CLASSES[kind](**options)


def load_tokenizer(directory: str | os.PathLike, classes=None) -> Tokenizer:
    """Reads a tokenizer written by ``Tokenizer.save(directory)``, of any kind in ``classes``
    (``{kind: class}``; default: `TOKENIZER_CLASSES`)."""
    classes = TOKENIZER_CLASSES if classes is None else classes
    kind = read_config(directory).get("kind")
    if kind not in classes:
        raise ValueError(f"{directory}: unknown tokenizer kind {kind!r}")
    return classes[kind].load(directory)


__all__ = ["CharTokenizer", "SubwordTokenizer", "TOKENIZER_KINDS", "Tokenizer", "WordTokenizer",
           "load_tokenizer", "make_tokenizer"]
