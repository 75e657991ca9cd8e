"""The base class of the tokenizers: normalization, special ids, vocabulary tables, save/load.

Every tokenizer computes in TensorFlow ops (``tf.strings`` and tensorflow-text), so the same object
works eagerly, inside ``tf.function``, inside ``tf.data.Dataset.map`` and inside an exported
SavedModel. Python only runs in :meth:`Tokenizer.build` (counting tokens, training SentencePiece).

Normalization (:meth:`Tokenizer.normalize`, identical for every kind):

1. invalid UTF-8 bytes become U+FFFD (``tf.strings.unicode_transcode(errors="replace")``), so
   broken input never crashes the pipeline;
2. Unicode NFKC (``tf_text.normalize_utf8``), which among others maps U+00A0 (no-break space),
   U+202F (narrow no-break space, French typography) and U+2009 to a plain space;
3. optional lower-casing (``lowercase=True``; Unicode aware, accents are kept), followed by NFKC
   again so that the result stays a fixed point;
4. every run of white space (ASCII white space, U+0085 and the Unicode ``Z`` categories) becomes one
   plain space, and leading/trailing spaces are removed. SentencePiece collapses white space anyway;
   doing it for every kind makes ``detokenize(tokenize(s)) == normalize(s)`` hold exactly for the
   char and subword tokenizers, and makes vocabulary files free of tabs and newlines.

Case and accents are kept by default.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import tensorflow as tf
import tensorflow_text as tf_text

from keras_nmt.saved_files import read_json, sha256_of
from keras_nmt.special_ids import END_ID, NUM_RESERVED, PAD_ID, RESERVED_TOKENS, START_ID, UNK_ID

CONFIG_FILE = "config.json"
VOCAB_FILE = "vocab.txt"
CHECKSUMS = "sha256"  # config.json: {file name: SHA-256} of the files `save` wrote
UNK_SURFACE = "\u2047"  # "⁇", the surface SentencePiece also uses for unknown pieces
_WHITESPACE_RUN = r"[\s\x{0B}\x{85}\p{Z}]+"
_NO_BREAK_SPACES = r"[\x{00A0}\x{202F}]"
_BUILD_CHUNK = 32768  # strings normalized per TF call while building (bounds memory)
_REMEDY = "copy the tokenizers again from where they were trained, or train again"


class Tokenizer(tf.Module):
    """Base class: shared normalization, special ids, vocabulary lookup and save/load.

    Subclasses set :attr:`kind` and implement :meth:`_split` (normalized strings to token strings,
    for vocabulary tokenizers) or override :meth:`_encode`/:meth:`_decode` (SentencePiece).
    Ids ``0..3`` are ``PAD``, ``UNK``, ``START``, ``END`` (``keras_nmt.special_ids``) in every kind.

    Args:
        lowercase: lower-case the text in :meth:`normalize` (and therefore everywhere).
        name: name of the ``tf.Module``.

    Example:
        >>> tok = keras_nmt.text.CharTokenizer().build(["hola", "adiós"])
        >>> ids = tok.tokenize(["hola"], add_start=True, add_end=True)  # [[2, h, o, l, a, 3]]
        >>> tok.detokenize(ids).numpy()
        array([b'hola'], dtype=object)
    """

    kind: ClassVar[str] = ""
    # Separator used by the default detokenizer between token surfaces.
    _join_separator: ClassVar[str] = ""

    def __init__(self, lowercase: bool = False, name: str | None = None):
        super().__init__(name=name or f"{self.kind}_tokenizer")
        self.lowercase = bool(lowercase)
        self._vocab: tuple[str, ...] | None = None
        self._token_to_id: tf.lookup.StaticHashTable | None = None
        self._id_to_token: tf.lookup.StaticHashTable | None = None

    @property
    def built(self) -> bool:
        """Whether the vocabulary (or SentencePiece model) exists."""
        return self._vocab is not None

    @property
    def vocab_size(self) -> int:
        """Number of ids, reserved ones included (ids are ``0 .. vocab_size - 1``)."""
        self._check_built()
        return len(self._vocab)

    @property
    def vocabulary(self) -> tuple[str, ...]:
        """The token strings in id order; the first four are ``RESERVED_TOKENS``."""
        self._check_built()
        return self._vocab

    def get_config(self) -> dict[str, Any]:
        """The constructor arguments plus ``kind``; JSON serializable."""
        return {"kind": self.kind, "lowercase": self.lowercase}

    def build(self, texts: Iterable[str]) -> Tokenizer:
        """Learns the vocabulary from training text.

        Args:
            texts: an iterable of python strings (or bytes); they are normalized first.

        Returns:
            ``self``, so that ``tok = CharTokenizer().build(texts)`` works.
        """
        counts: Counter = Counter()
        for chunk in _normalized_chunks(self, texts):
            tokens = self._split(chunk).flat_values.numpy()
            counts.update(tokens.tolist())
        self._set_vocabulary(self._select_vocabulary(counts))
        return self

    def normalize(self, strings) -> tf.Tensor:
        """Normalizes a batch of strings (see the module docstring for the exact rules).

        Args:
            strings: python list of ``str``/``bytes`` or ``tf.string`` tensor, shape ``(batch,)``.

        Returns:
            ``tf.string`` tensor ``(batch,)``.
        """
        strings = _as_string_batch(strings)
        # Replace broken UTF-8 first: normalize_utf8 and the regex ops expect valid UTF-8.
        strings = tf.strings.unicode_transcode(strings, "UTF-8", "UTF-8", errors="replace",
                                               replacement_char=0xFFFD)
        strings = tf_text.normalize_utf8(strings, "NFKC")
        # NFKC already maps these to U+0020; kept explicit because the contract names them.
        strings = tf.strings.regex_replace(strings, _NO_BREAK_SPACES, " ")
        if self.lowercase:
            strings = tf.strings.lower(strings, encoding="utf-8")
            strings = tf_text.normalize_utf8(strings, "NFKC")
        strings = tf.strings.regex_replace(strings, _WHITESPACE_RUN, " ")
        return tf.strings.strip(strings)

    def tokenize(self, strings, add_start: bool = False, add_end: bool = False) -> tf.RaggedTensor:
        """Normalizes and maps strings to ids, vectorized over the batch.

        Args:
            strings: python list or ``tf.string`` tensor of shape ``(batch,)`` (rank 1 required).
            add_start: put ``START_ID`` (2) first in every row.
            add_end: put ``END_ID`` (3) last in every row.

        Returns:
            ``tf.RaggedTensor`` int32 of shape ``(batch, None)``; never contains ``PAD_ID`` (0);
            unknown tokens are ``UNK_ID`` (1).
        """
        self._check_built()
        ids = tf.cast(self._encode(self.normalize(strings)), tf.int32)
        batch = ids.nrows(out_type=tf.int64)
        start = [_constant_column(batch, START_ID)] if add_start else []
        end = [_constant_column(batch, END_ID)] if add_end else []
        return tf.concat(start + [ids] + end, axis=1) if start or end else ids

    def detokenize(self, ids) -> tf.Tensor:
        """Maps ids back to text.

        ``PAD`` and ``START`` are dropped, everything from the first ``END`` on is cut, and ids
        outside the vocabulary count as ``UNK`` (shown as ``"⁇"``).

        Args:
            ids: integer ids, dense ``(batch, len)`` (tensor, numpy array, nested lists) or a
                ``tf.RaggedTensor`` ``(batch, None)``.

        Returns:
            ``tf.string`` tensor ``(batch,)``.
        """
        self._check_built()
        return self._decode(self._clean_ids(ids))

    def ids_to_tokens(self, ids) -> tf.RaggedTensor:
        """Maps every id to its token string (special ids included, nothing dropped).

        Args:
            ids: integer ids ``(batch, len)``, dense or ragged.

        Returns:
            ``tf.RaggedTensor`` of ``tf.string`` with the same row lengths; ids out of range give
            ``"<unk>"``.
        """
        self._check_built()
        ids = _as_ragged_ids(ids)
        return ids.with_flat_values(self._id_to_piece(ids.flat_values))

    def save(self, directory: str | os.PathLike) -> Path:
        """Writes plain files: the vocabulary (or SentencePiece model) and ``config.json``.

        Args:
            directory: created if needed.

        Returns:
            The directory as a ``Path``. Read it back with ``keras_nmt.text.load_tokenizer``.
        """
        self._check_built()
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        config = self.get_config()
        files = self._save_files(directory)
        config.update(files)
        config["num_ids"] = self.vocab_size  # informative; the size comes from the files
        # `load` checks them: a file cut or changed since (a vocabulary that still begins with
        # the special tokens) would otherwise load and translate differently, without a word.
        config[CHECKSUMS] = {name: sha256_of(directory / name) for name in files.values()}
        with open(directory / CONFIG_FILE, "w", encoding="utf-8") as f:
            json.dump(config, f, ensure_ascii=False, indent=2)
        return directory

    @classmethod
    def load(cls, directory: str | os.PathLike) -> Tokenizer:
        """Reads a tokenizer written by :meth:`save` (of this class)."""
        directory = Path(directory)
        config = read_config(directory)
        if config.get("kind") != cls.kind:
            raise ValueError(f"{directory} holds a {config.get('kind')!r} tokenizer, not "
                             f"{cls.kind!r}")
        files = {k: config.pop(k) for k in list(config) if k.endswith("_file")}
        for name, checksum in config.pop(CHECKSUMS, {}).items():  # none: loaded unchecked
            path = directory / name
            if not path.is_file() or sha256_of(path) != checksum:
                size = f"now {path.stat().st_size:,} bytes" if path.is_file() else "it is gone"
                raise ValueError(f"{path} is damaged (it fails its checksum: changed after the "
                                 f"tokenizer was saved, {size}); {_REMEDY}")
        config.pop("kind")
        config.pop("num_ids", None)
        tokenizer = cls(**config)
        tokenizer._load_files(directory, files)
        return tokenizer

    def _split(self, normalized: tf.Tensor) -> tf.RaggedTensor:
        """Normalized strings ``(batch,)`` to token strings ``(batch, None)``."""
        raise NotImplementedError

    def _select_vocabulary(self, counts: Counter) -> list[str]:
        """The vocabulary from byte-string counts: the reserved tokens, then the tokens seen at
        least ``min_count`` times, most frequent first (ties by token), cut so that the whole
        vocabulary has at most ``max_vocab`` entries (the char and word tokenizers' rule)."""
        reserved = {t.encode("utf-8") for t in RESERVED_TOKENS}
        items = [(tok, n) for tok, n in counts.items()
                 if n >= self.min_count and tok not in reserved]
        items.sort(key=lambda item: (-item[1], item[0]))
        if self.max_vocab is not None:
            if self.max_vocab <= NUM_RESERVED:
                raise ValueError(f"max_vocab must exceed the {NUM_RESERVED} reserved ids")
            items = items[: self.max_vocab - NUM_RESERVED]
        return list(RESERVED_TOKENS) + [tok.decode("utf-8") for tok, _ in items]

    def _postprocess(self, joined: tf.Tensor) -> tf.Tensor:
        """Fixes the joined token surfaces (word spacing); identity by default."""
        return joined

    def _encode(self, normalized: tf.Tensor) -> tf.RaggedTensor:
        tokens = self._split(normalized)
        return tokens.with_flat_values(self._token_to_id.lookup(tokens.flat_values))

    def _decode(self, ids: tf.RaggedTensor) -> tf.Tensor:
        flat = ids.flat_values
        surfaces = tf.where(tf.equal(flat, UNK_ID), tf.constant(UNK_SURFACE),
                            self._id_to_piece(flat))
        return self._postprocess(tf.strings.reduce_join(
            ids.with_flat_values(surfaces), axis=-1, separator=self._join_separator))

    def _id_to_piece(self, flat_ids: tf.Tensor) -> tf.Tensor:
        return self._id_to_token.lookup(tf.cast(flat_ids, tf.int64))

    def _save_files(self, directory: Path) -> dict[str, str]:
        with open(directory / VOCAB_FILE, "w", encoding="utf-8", newline="\n") as f:
            f.write("\n".join(self._vocab) + "\n")
        return {"vocab_file": VOCAB_FILE}

    def _load_files(self, directory: Path, files: dict[str, str]) -> None:
        path = directory / files["vocab_file"]
        with open(path, encoding="utf-8", newline="\n") as f:
            # split("\n"), not splitlines(): tokens may be characters such as U+2028 or U+001C.
            vocab = f.read().split("\n")
        if vocab and vocab[-1] == "":
            vocab.pop()
        try:
            self._set_vocabulary(vocab, filename=str(path.resolve()))
        except ValueError as error:
            raise ValueError(f"{path} is damaged ({error}); {_REMEDY}") from None

    def _set_vocabulary(self, vocab: Sequence[str], filename: str | None = None) -> None:
        """Installs ``vocab`` (the full list, reserved tokens first) and its lookup tables.

        A tokenizer loaded from disk initializes its tables from the vocabulary file, so a
        SavedModel that holds it stores the file as an asset; a freshly built one uses constants.
        """
        vocab = tuple(vocab)
        if vocab[:NUM_RESERVED] != tuple(RESERVED_TOKENS):
            raise ValueError(f"vocabulary must start with {RESERVED_TOKENS}, got {vocab[:4]}")
        if len(set(vocab)) != len(vocab):
            raise ValueError("vocabulary has duplicate tokens")
        if filename is None:
            keys = tf.constant(vocab, dtype=tf.string)
            values = tf.range(len(vocab), dtype=tf.int64)
            forward = tf.lookup.KeyValueTensorInitializer(keys, values)
            backward = tf.lookup.KeyValueTensorInitializer(values, keys)
        else:
            whole, number = tf.lookup.TextFileIndex.WHOLE_LINE, tf.lookup.TextFileIndex.LINE_NUMBER
            forward = tf.lookup.TextFileInitializer(filename, tf.string, whole, tf.int64, number,
                                                    vocab_size=len(vocab))
            backward = tf.lookup.TextFileInitializer(filename, tf.int64, number, tf.string, whole,
                                                     vocab_size=len(vocab))
        self._token_to_id = tf.lookup.StaticHashTable(forward, default_value=UNK_ID)
        self._id_to_token = tf.lookup.StaticHashTable(backward, RESERVED_TOKENS[UNK_ID])
        self._vocab = vocab

    def _clean_ids(self, ids) -> tf.RaggedTensor:
        """Drops PAD/START, cuts at the first END, maps out-of-range ids to UNK; int32 ragged."""
        # Dense (ragged rows padded with PAD, which is dropped anyway): fewer graph ops than
        # ragged masking, traced by every function of an export (docs/decisions.md).
        ids = tf.cast(_as_dense_ids(ids), tf.int32)
        # A position survives when no END occurs in its row at or before it.
        ends_so_far = tf.math.cumsum(tf.cast(tf.equal(ids, END_ID), tf.int32), axis=1)
        keep = tf.equal(ends_so_far, 0) & tf.not_equal(ids, PAD_ID) & tf.not_equal(ids, START_ID)
        flat = tf.boolean_mask(ids, keep)  # row by row
        flat = tf.where((flat < 0) | (flat >= self.vocab_size), UNK_ID, flat)
        lengths = tf.reduce_sum(tf.cast(keep, tf.int64), axis=1)
        return tf.RaggedTensor.from_row_lengths(flat, lengths, validate=False)

    def _check_built(self) -> None:
        if not self.built:
            raise RuntimeError(f"{type(self).__name__} has no vocabulary: call build(texts) or "
                               "load_tokenizer()")


def read_config(directory: str | os.PathLike) -> dict[str, Any]:
    """Reads ``config.json`` of a saved tokenizer directory; a damaged one is named."""
    path = Path(directory) / CONFIG_FILE
    if not path.exists():
        raise FileNotFoundError(f"no tokenizer {CONFIG_FILE} in {directory}")
    return read_json(path, _REMEDY, expect=dict)


def _normalized_chunks(tokenizer: Tokenizer, texts: Iterable[str]):
    """Yields normalized ``tf.string`` batches of the texts (chunked to bound memory)."""
    chunk: list = []
    for text in texts:
        chunk.append(text)
        if len(chunk) == _BUILD_CHUNK:
            yield tokenizer.normalize(chunk)
            chunk = []
    if chunk:
        yield tokenizer.normalize(chunk)


def _as_string_batch(strings) -> tf.Tensor:
    """A rank-1 ``tf.string`` tensor from a list or a tensor; rejects scalars with a clear error."""
    if isinstance(strings, (str, bytes)):
        raise ValueError("tokenizers expect a batch of strings with shape (batch,); wrap a single "
                         "string in a list: tokenize([text])")
    if isinstance(strings, (list, tuple)) and not strings:
        return tf.zeros([0], dtype=tf.string)
    strings = tf.convert_to_tensor(strings, dtype=tf.string)
    if strings.shape.rank is None:
        # Unknown rank inside tf.function: check when it runs.
        return tf.ensure_shape(strings, [None])
    if strings.shape.rank != 1:
        raise ValueError(f"tokenizers expect strings of shape (batch,), got shape {strings.shape}; "
                         "reshape to rank 1 (e.g. tf.reshape(x, [-1]))")
    return strings


def _as_ragged_ids(ids) -> tf.RaggedTensor:
    """Integer ids ``(batch, len)`` as a ``tf.RaggedTensor`` (dense input keeps every column)."""
    if isinstance(ids, tf.RaggedTensor):
        return ids
    if isinstance(ids, (list, tuple)):
        return tf.ragged.constant(ids, dtype=tf.int64, ragged_rank=1, inner_shape=())
    return tf.RaggedTensor.from_tensor(_as_dense_ids(ids))


def _as_dense_ids(ids) -> tf.Tensor:
    """Integer ids ``(batch, len)`` as a dense tensor (ragged rows padded with ``PAD_ID``)."""
    if isinstance(ids, (list, tuple, tf.RaggedTensor)):
        return _as_ragged_ids(ids).to_tensor(default_value=PAD_ID)
    ids = tf.convert_to_tensor(np.asarray(ids) if not tf.is_tensor(ids) else ids)
    if ids.shape.rank != 2:
        raise ValueError(f"ids must have shape (batch, len), got {ids.shape}")
    return ids


def _constant_column(batch: tf.Tensor, value: int) -> tf.RaggedTensor:
    """A ragged ``(batch, 1)`` int32 column of ``value``."""
    return tf.RaggedTensor.from_uniform_row_length(
        tf.fill([batch], tf.constant(value, tf.int32)), uniform_row_length=1, nrows=batch)
