"""Character (Unicode code point) tokenizer."""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from keras_nmt.text.tokenizer import Tokenizer


class CharTokenizer(Tokenizer):
    """One token per Unicode code point of the normalized text (spaces included).

    The vocabulary holds the characters seen at least ``min_count`` times in :meth:`build`, most
    frequent first, after the reserved ids 0-3; other characters map to ``UNK_ID``. Because the
    pieces are joined with no separator, ``detokenize(tokenize(s)) == normalize(s)`` exactly when
    every character is in the vocabulary (an unknown one comes back as ``"⁇"``).

    Args:
        min_count: minimum number of occurrences in the training text to get an id.
        max_vocab: maximum vocabulary size, reserved ids included; ``None`` for no limit.
        lowercase, name: as in :class:`Tokenizer`.

    Example:
        >>> tok = CharTokenizer().build(["¿Qué tal?", "Très bien."])
        >>> ids = tok.tokenize(["¿Qué?"], add_end=True)  # RaggedTensor (1, 6), last id 3
        >>> tok.detokenize(ids).numpy()[0].decode()
        '¿Qué?'
    """

    kind = "char"
    _join_separator = ""

    def __init__(self, min_count: int = 1, max_vocab: int | None = None, lowercase: bool = False,
                 name: str | None = None):
        super().__init__(lowercase=lowercase, name=name)
        self.min_count = int(min_count)
        self.max_vocab = None if max_vocab is None else int(max_vocab)

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), "min_count": self.min_count, "max_vocab": self.max_vocab}

    def _split(self, normalized: tf.Tensor) -> tf.RaggedTensor:
        # (batch,) -> (batch, None) code points as UTF-8 strings; input is valid UTF-8 by now.
        return tf.strings.unicode_split(normalized, "UTF-8")
