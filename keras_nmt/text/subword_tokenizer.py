"""Subword tokenizer: SentencePiece trained in Python, applied in-graph by tensorflow-text."""

from __future__ import annotations

import contextlib
import hashlib
import io
import os
import sys
from pathlib import Path
from typing import Any

import sentencepiece as spm
import tensorflow as tf
import tensorflow_text as tf_text
from tensorflow_text.python.ops import sentencepiece_tokenizer

from keras_nmt.plural import plural
from keras_nmt.special_ids import END_ID, PAD_ID, RESERVED_TOKENS, START_ID, SUBWORD_MODELS, UNK_ID
from keras_nmt.text.tokenizer import Tokenizer, _normalized_chunks

MODEL_FILE = "subword.model"


class SubwordTokenizer(Tokenizer):
    """SentencePiece subwords (unigram language model or BPE).

    :meth:`build` trains a model with the ``sentencepiece`` package on the normalized text, with
    ``pad/unk/bos/eos`` ids ``0/1/2/3`` (``keras_nmt.special_ids``), the ``"identity"``
    normalization rule (:meth:`normalize` already did NFKC), no byte fallback and
    ``hard_vocab_limit=False`` (a small corpus gives a smaller vocabulary rather than an error).
    :meth:`tokenize` and :meth:`detokenize` run ``tf_text.SentencepieceTokenizer`` on the
    serialized model, which is stored in the module (and in an exported SavedModel).

    Because :meth:`normalize` already collapsed and stripped white space,
    ``detokenize(tokenize(s)) == normalize(s)`` exactly when every character was seen in
    training. A character not seen in training becomes ``UNK_ID`` and detokenizes as
    SentencePiece's unknown surface ``" ⁇ "`` (U+2047 with a space on each side; runs of spaces
    are then collapsed and the ends stripped, e.g. ``"漢字 Tell me 😀!"`` -> ``"⁇ Tell me ⁇ !"``).

    References:
        Kudo, "Subword Regularization" (2018), arXiv:1804.10959 (unigram);
        Sennrich et al., "Neural Machine Translation of Rare Words with Subword Units" (2016),
        arXiv:1508.07909 (BPE); Kudo & Richardson, "SentencePiece" (2018), arXiv:1808.06226.

    Args:
        vocab_size: requested number of pieces, reserved ids included (an upper bound: small
            corpora give fewer, see :attr:`vocab_size` after :meth:`build`).
        model_type: ``"unigram"`` or ``"bpe"``.
        lowercase, name: as in :class:`Tokenizer`.
        character_coverage: fraction of characters covered by the model (1.0: all seen ones).
        input_sentence_size: at most this many training sentences are sampled (0: all).

    Example:
        >>> tok = SubwordTokenizer(vocab_size=1000).build(english_sentences)
        >>> ids = tok.tokenize(["Tell me."], add_start=True, add_end=True)  # (1, None) int32
        >>> tok.detokenize(ids).numpy()[0].decode()
        'Tell me.'
    """

    kind = "subword"

    def __init__(self, vocab_size: int = 8000, model_type: str = "unigram", lowercase: bool = False,
                 character_coverage: float = 1.0, input_sentence_size: int = 2_000_000,
                 name: str | None = None):
        super().__init__(lowercase=lowercase, name=name)
        if model_type not in SUBWORD_MODELS:
            raise ValueError(f"model_type must be one of {SUBWORD_MODELS}, got {model_type!r}")
        self.requested_vocab_size = int(vocab_size)
        self.model_type = model_type
        self.character_coverage = float(character_coverage)
        self.input_sentence_size = int(input_sentence_size)
        self._model_proto: bytes | None = None
        self._sp: tf_text.SentencepieceTokenizer | None = None

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), "vocab_size": self.requested_vocab_size,
                "model_type": self.model_type, "character_coverage": self.character_coverage,
                "input_sentence_size": self.input_sentence_size}

    @property
    def model_proto(self) -> bytes:
        """The serialized SentencePiece model (the content of ``subword.model``)."""
        self._check_built()
        return self._model_proto

    def build(self, texts) -> SubwordTokenizer:
        """Trains the SentencePiece model on the normalized ``texts`` (an iterable of strings)."""
        sentences = [s.decode("utf-8") for chunk in _normalized_chunks(self, texts)
                     for s in chunk.numpy() if s]
        if not sentences:
            raise ValueError("SubwordTokenizer.build needs at least one non-empty text")
        model = io.BytesIO()
        try:
            with _native_info_discarded():
                spm.SentencePieceTrainer.train(
                    sentence_iterator=iter(sentences), model_writer=model,
                    vocab_size=self.requested_vocab_size, model_type=self.model_type,
                    character_coverage=self.character_coverage,
                    input_sentence_size=self.input_sentence_size, shuffle_input_sentence=True,
                    pad_id=PAD_ID, unk_id=UNK_ID, bos_id=START_ID, eos_id=END_ID,
                    pad_piece=RESERVED_TOKENS[PAD_ID], unk_piece=RESERVED_TOKENS[UNK_ID],
                    bos_piece=RESERVED_TOKENS[START_ID], eos_piece=RESERVED_TOKENS[END_ID],
                    # `normalize` did NFKC and the spaces, in TF ops, as for every tokenizer.
                    normalization_rule_name="identity", hard_vocab_limit=False,
                    byte_fallback=False,
                    # Sentences longer than this (in bytes) would be dropped silently.
                    max_sentence_length=1 << 16, num_threads=max(1, min(4, os.cpu_count() or 1)),
                    minloglevel=2)
        except RuntimeError as error:
            # SentencePiece's own check, e.g. "Vocabulary size is smaller than required_chars.
            # 5 vs 63", under a C++ source location.
            reason = str(error).split("] ")[-1].split(". Increase")[0]
            pieces = plural(self.requested_vocab_size, "piece")
            raise ValueError(f"a subword vocabulary of {pieces} cannot be built on this data "
                             f"({reason}): raise --vocab-size (the characters of the data "
                             "and the 4 reserved tokens need a piece each)") from None
        self._set_model(model.getvalue())
        return self

    def _set_model(self, model_proto: bytes) -> None:
        with _native_info_discarded():
            processor = spm.SentencePieceProcessor(model_proto=model_proto)
        vocab = tuple(processor.id_to_piece(i) for i in range(processor.get_piece_size()))
        if vocab[: len(RESERVED_TOKENS)] != tuple(RESERVED_TOKENS):
            raise ValueError(f"SentencePiece model must start with {RESERVED_TOKENS}: {vocab[:4]}")
        self._model_proto = model_proto
        with _native_info_discarded():  # the constructor loads the model once more
            self._sp = tf_text.SentencepieceTokenizer(model=model_proto, out_type=tf.int32)
        self._sp._model_resource = _SharedSentencepieceResource(model_proto)
        self._vocab = vocab

    def _encode(self, normalized: tf.Tensor) -> tf.RaggedTensor:
        # (batch,) -> (batch, None) int32; the op never adds bos/eos (tokenize does that).
        return self._sp.tokenize(normalized)

    def _decode(self, ids: tf.RaggedTensor) -> tf.Tensor:
        text = self._sp.detokenize(ids)
        # The unknown surface " ⁇ " brings its own spaces ("me  ⁇ !"); normalized text never has
        # runs of spaces, so collapsing them changes nothing else.
        return tf.strings.strip(tf.strings.regex_replace(text, " {2,}", " "))

    def _id_to_piece(self, flat_ids: tf.Tensor) -> tf.Tensor:
        flat_ids = tf.cast(flat_ids, tf.int32)
        in_range = (flat_ids >= 0) & (flat_ids < self.vocab_size)
        pieces = self._sp.id_to_string(tf.where(in_range, flat_ids, UNK_ID))
        return tf.where(in_range, pieces, tf.constant(RESERVED_TOKENS[UNK_ID]))

    def _save_files(self, directory: Path) -> dict[str, str]:
        (directory / MODEL_FILE).write_bytes(self._model_proto)
        return {"model_file": MODEL_FILE}

    def _load_files(self, directory: Path, files: dict[str, str]) -> None:
        self._set_model((directory / files["model_file"]).read_bytes())


class _SharedSentencepieceResource(sentencepiece_tokenizer._SentencepieceModelResource):
    """The SentencePiece model resource under a shared name, so it outlives its kernel.

    tensorflow-text creates the resource private to the op kernel that made it, and
    `tf.random.set_seed` (hence `keras.utils.set_random_seed`) clears the eager kernel cache:
    every later `tokenize` would fail with "Resource ..._SentencepieceOp... does not exist".
    A resource with a `shared_name` lives in the resource manager instead. The name derives from
    the model bytes, so equal models share one resource.
    """

    def __init__(self, model_proto):
        self._shared_name = "keras_nmt_sp_" + hashlib.sha1(model_proto).hexdigest()[:20]
        super().__init__(model_proto, None)

    def _create_resource(self):
        with tf.name_scope("SentenceTokenizerInitializer"), _native_info_discarded():
            return sentencepiece_tokenizer.gen_sentencepiece_tokenizer.sentencepiece_op(
                model=self._model, shared_name=self._shared_name)


@contextlib.contextmanager
def _native_info_discarded():
    """Discards what native code writes to file descriptor 2 in the block: the SentencePiece
    copy inside tensorflow-text logs "normalizer.cc(51) LOG(INFO) precompiled_charsmap is
    empty" each time it loads one of our models (we normalize in TF ops, so the map is empty on
    purpose), and has no setting to silence it. Its real errors reach Python as exceptions."""
    sys.stderr.flush()
    saved = os.dup(2)
    try:
        with open(os.devnull, "w") as devnull:
            os.dup2(devnull.fileno(), 2)
            yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)
