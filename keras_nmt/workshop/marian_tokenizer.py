"""Tokenizers on SentencePiece models made elsewhere: that of imported Marian (OPUS-MT) models
(SentencePiece pieces, Marian's vocabulary) and one's own model (`sentencepiece_model_tokenizer`);
and `load_run_tokenizer`, which reads any kind a run folder holds."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import sentencepiece as spm
import tensorflow as tf
import tensorflow_text as tf_text
from sentencepiece import sentencepiece_model_pb2

from keras_nmt.special_ids import END_ID, RESERVED_TOKENS, SUBWORD_MODELS, UNK_ID
from keras_nmt.text import TOKENIZER_CLASSES, load_tokenizer
from keras_nmt.text.subword_tokenizer import (
    SubwordTokenizer,
    _native_info_discarded,
    _SharedSentencepieceResource,
)
from keras_nmt.text.tokenizer import Tokenizer, _as_string_batch, _constant_column

SENTENCEPIECE_FILE = "sentencepiece.model"
# A multilingual model's target-language token opens the source: ">>spa<< ...". Like
# transformers' MarianTokenizer, the text up to the first "<<" is one token when it starts ">>".
_LANGUAGE_TOKEN = r"^>>.*?<<"


class MarianTokenizer(Tokenizer):
    """SentencePiece pieces mapped to ids through a Marian model's own vocabulary.

    Marian's ids are not SentencePiece's: a Marian model keeps a vocabulary of pieces (the union
    of the source and target SentencePiece models of OPUS-MT, plus `</s>`, `<unk>`, language
    tokens such as `>>spa<<`, and transformers' `<pad>`), and the import
    (`keras_nmt.workshop.pretrained`) reorders it so that ids 0..3 are ours (`<pad>`, `<unk>`,
    `<s>`, `</s>`). This tokenizer cuts text into pieces with the SentencePiece model (its own
    normalization rules included, as Marian and transformers' `MarianTokenizer` do) and looks
    every piece up in that vocabulary (`UNK_ID` when absent). On a source tokenizer
    (`append_end=True`) every sentence ends with `</s>`, as Marian's encoders were trained; a
    leading `>>xx<<` is one token (the target language of a multilingual model).

    Detokenizing maps ids back to pieces and lets SentencePiece join them (a piece the model
    does not know shows as `" ⁇ "`). Everything runs in tensorflow-text ops, so the tokenizer
    lives inside an exported SavedModel like the other kinds.

    Unlike the other kinds, :meth:`normalize` only replaces invalid UTF-8: the model's own
    SentencePiece normalization (usually `nmt_nfkc`) is the one its vocabulary was built with.

    Args:
        append_end: end every tokenized sentence with `END_ID` (a Marian source).
        name: name of the ``tf.Module``.

    Example:
        >>> tok = MarianTokenizer.from_pieces(spm_bytes, vocabulary, append_end=True)
        >>> tok.tokenize([">>spa<< Hello."])  # [[id of >>spa<<, ▁Hello, ., </s>]]

    References:
        Junczys-Dowmunt et al., 2018, "Marian: Fast Neural Machine Translation in C++",
        https://arxiv.org/abs/1804.00344; Tiedemann & Thottingal, 2020, "OPUS-MT",
        https://aclanthology.org/2020.eamt-1.61
    """

    kind = "marian"

    def __init__(self, append_end: bool = False, name: str | None = None):
        super().__init__(lowercase=False, name=name)
        self.append_end = bool(append_end)
        self._model_proto: bytes | None = None
        self._sp: tf_text.SentencepieceTokenizer | None = None

    @classmethod
    def from_pieces(cls, model_proto: bytes, vocabulary, append_end: bool = False,
                    name: str | None = None) -> MarianTokenizer:
        """A built tokenizer from a SentencePiece model and the pieces of ids 0, 1, ...

        Args:
            model_proto: the serialized SentencePiece model (`source.spm` or `target.spm`).
            vocabulary: the piece of every id, `RESERVED_TOKENS` first.
            append_end: as in the constructor.
            name: as in the constructor.
        """
        tokenizer = cls(append_end=append_end, name=name)
        tokenizer._set_model(model_proto)
        tokenizer._set_vocabulary(vocabulary)
        return tokenizer

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.pop("lowercase")
        config["append_end"] = self.append_end
        return config

    def build(self, texts) -> MarianTokenizer:
        raise TypeError("a Marian tokenizer is imported with its model (keras-nmt import), "
                        "not built from text")

    def normalize(self, strings) -> tf.Tensor:
        strings = _as_string_batch(strings)
        return tf.strings.unicode_transcode(
            strings, "UTF-8", "UTF-8", errors="replace", replacement_char=0xFFFD
        )

    def _set_model(self, model_proto: bytes) -> None:
        spm.SentencePieceProcessor(model_proto=model_proto)  # fails early on a damaged model
        self._model_proto = model_proto
        self._sp = tf_text.SentencepieceTokenizer(model=model_proto, out_type=tf.string)
        self._sp._model_resource = _SharedSentencepieceResource(model_proto)

    def _encode(self, normalized: tf.Tensor) -> tf.RaggedTensor:
        # (batch,) -> (batch, None) int32: [language token] + pieces [+ </s>]
        has_code = tf.strings.regex_full_match(normalized, "(?s)" + _LANGUAGE_TOKEN + ".*")
        code = tf.strings.regex_replace(normalized, "(?s)(" + _LANGUAGE_TOKEN + ").*", r"\1")
        text = tf.strings.regex_replace(normalized, "(?s)" + _LANGUAGE_TOKEN, "")
        pieces = self._sp.tokenize(text)  # (batch, None) tf.string
        codes = tf.RaggedTensor.from_row_lengths(
            tf.boolean_mask(code, has_code), tf.cast(has_code, tf.int64)
        )
        pieces = tf.concat([codes, pieces], axis=1)
        ids = pieces.with_flat_values(
            tf.cast(self._token_to_id.lookup(pieces.flat_values), tf.int32)
        )
        if self.append_end:
            ids = tf.concat([ids, _constant_column(ids.nrows(out_type=tf.int64), END_ID)], axis=1)
        return ids

    def _decode(self, ids: tf.RaggedTensor) -> tf.Tensor:
        pieces = self._id_to_token.lookup(tf.cast(ids.flat_values, tf.int64))
        piece_ids = ids.with_flat_values(self._sp.string_to_id(pieces))
        text = self._sp.detokenize(piece_ids)
        # The unknown surface " ⁇ " brings its own spaces, as in SubwordTokenizer._decode.
        return tf.strings.strip(tf.strings.regex_replace(text, " {2,}", " "))

    def _id_to_piece(self, flat_ids: tf.Tensor) -> tf.Tensor:
        flat_ids = tf.cast(flat_ids, tf.int64)
        in_range = (flat_ids >= 0) & (flat_ids < self.vocab_size)
        return self._id_to_token.lookup(tf.where(in_range, flat_ids, UNK_ID))

    def _save_files(self, directory: Path) -> dict[str, str]:
        files = super()._save_files(directory)
        (directory / SENTENCEPIECE_FILE).write_bytes(self._model_proto)
        return {**files, "model_file": SENTENCEPIECE_FILE}

    def _load_files(self, directory: Path, files: dict[str, str]) -> None:
        self._set_model((directory / files["model_file"]).read_bytes())
        super()._load_files(directory, files)


# The kinds a run folder or an export may hold: those built from text, and an imported Marian
# model's (`keras-nmt import`).
RUN_TOKENIZER_CLASSES = {**TOKENIZER_CLASSES, MarianTokenizer.kind: MarianTokenizer}


def load_run_tokenizer(directory):
    """A tokenizer of a run folder or an export, of any kind it may hold
    (`keras_nmt.text.load_tokenizer` over `RUN_TOKENIZER_CLASSES`)."""
    return load_tokenizer(directory, RUN_TOKENIZER_CLASSES)


def sentencepiece_model_tokenizer(path, lowercase=False):
    """A `SubwordTokenizer` on a SentencePiece model trained elsewhere (`train
    --sentencepiece-model`), built as it is.

    Its first pieces must be our reserved tokens: train it with ``spm_train ... --pad_id=0
    --unk_id=1 --bos_id=2 --eos_id=3`` (SentencePiece's default names them ``<pad>``,
    ``<unk>``, ``<s>``, ``</s>``). Its own normalization runs after ours (NFKC).

    Example:
        >>> tok = sentencepiece_model_tokenizer("spm/joint.model")  # doctest: +SKIP
    """
    try:
        proto = Path(path).read_bytes()
    except OSError as error:
        raise ValueError(f"{path}: cannot read this SentencePiece model "
                         f"({error.strerror or error})") from None
    try:
        with _native_info_discarded():
            spec = spm.SentencePieceProcessor(model_proto=proto)
        pieces = [spec.id_to_piece(i) for i in range(min(4, spec.get_piece_size()))]
    except (RuntimeError, OSError) as error:
        raise ValueError(f"{path}: not a SentencePiece model ({error})") from None
    if tuple(pieces) != RESERVED_TOKENS:
        raise ValueError(
            f"{path}: its first pieces are {pieces}, keras_nmt needs {list(RESERVED_TOKENS)}; "
            "train it with spm_train ... --pad_id=0 --unk_id=1 --bos_id=2 --eos_id=3")
    model = sentencepiece_model_pb2.ModelProto.FromString(proto)
    model_type = sentencepiece_model_pb2.TrainerSpec.ModelType.Name(
        model.trainer_spec.model_type).lower()
    tokenizer = SubwordTokenizer(vocab_size=spec.get_piece_size(),
                                 model_type=model_type if model_type in SUBWORD_MODELS
                                 else "unigram",
                                 lowercase=lowercase,
                                 character_coverage=model.trainer_spec.character_coverage or 1.0)
    tokenizer._set_model(proto)
    return tokenizer
