"""Reads a Marian model from disk, in either published layout, into one neutral form.

Two layouts hold the same model:

- a Hugging Face MarianMT directory: `config.json` (`"model_type": "marian"`),
  `model.safetensors`, `source.spm`, `target.spm`, `vocab.json` (and `target_vocab.json` when
  the vocabularies are separate), `tokenizer_config.json`;
- an OPUS-MT release folder: the Marian `.npz` (its options in the array `special:model.yml`),
  the vocabulary `*.vocab.yml` (or `*.src.vocab.yml` and `*.trg.vocab.yml`), `source.spm`,
  `target.spm`, `decoder.yml`.

`read_marian` returns a `MarianCheckpoint` whose weights carry transformers' names and
orientation (`(out, in)` matrices); the `.npz` names (`encoder_l1_self_Wq`, `(in, out)`) are
translated on reading. Every problem is a `MarianImportError` naming the file.
"""

import dataclasses
import json
import re
from pathlib import Path

import numpy as np
import sentencepiece
import yaml

from keras_nmt.plural import plural
from keras_nmt.workshop.pretrained.safetensors_file import SafetensorsError, read_safetensors
from keras_nmt.workshop.run.train_config import check_language_pair

HF_FILES = ("config.json", "model.safetensors", "source.spm", "target.spm", "vocab.json")
OPUS_FILES = ("source.spm", "target.spm", "decoder.yml")
MODEL_YML = "special:model.yml"
# `.npz` sub-layer names -> transformers' (per layer; W are (in, out) there, (out, in) here).
_NPZ_LAYER_NAMES = {
    "self_W{}": "self_attn.{}_proj.weight", "self_b{}": "self_attn.{}_proj.bias",
    "context_W{}": "encoder_attn.{}_proj.weight", "context_b{}": "encoder_attn.{}_proj.bias",
}
_NPZ_FIXED_NAMES = {
    "self_Wo_ln_scale": "self_attn_layer_norm.weight",
    "self_Wo_ln_bias": "self_attn_layer_norm.bias",
    "context_Wo_ln_scale": "encoder_attn_layer_norm.weight",
    "context_Wo_ln_bias": "encoder_attn_layer_norm.bias",
    "ffn_W1": "fc1.weight", "ffn_b1": "fc1.bias", "ffn_W2": "fc2.weight", "ffn_b2": "fc2.bias",
    "ffn_ffn_ln_scale": "final_layer_norm.weight", "ffn_ffn_ln_bias": "final_layer_norm.bias",
}
_ACTIVATIONS = {"swish": "swish", "silu": "swish", "relu": "relu", "gelu": "gelu"}
# transformers' LayerNorm epsilon, used for both layouts so that they import to one model.
NORM_EPSILON = 1e-5


class MarianImportError(ValueError):
    """A Marian model that cannot be imported; the message names the file and the reason."""


@dataclasses.dataclass
class MarianCheckpoint:
    """A Marian model as read from disk.

    Attributes:
        path: the directory read.
        layout: `"huggingface"` or `"opus-mt"`.
        num_layers, d_model, num_heads, ff_dim: the sizes (encoder and decoder alike).
        activation: the feed-forward activation (`"swish"` for OPUS-MT).
        max_length: the longest sequence the model accepts (its position table).
        dropout: the training dropout.
        source_vocabulary, target_vocabulary: the piece of each Marian id (one list when
            shared); `<pad>` included (transformers adds it last).
        shared_embeddings: one embedding for the encoder, decoder and output.
        pad_id, eos_id, unk_id, start_id: Marian's ids (the decoder starts from `start_id`,
            transformers' pad token).
        weights: `{transformers name: float32 array}`; `(out, in)` matrices.
        source_spm, target_spm: the SentencePiece models' bytes.
        languages: `"SRC,TGT"` as the model states it (`source_lang`/`target_lang` of
            `tokenizer_config.json`, or the release README's one source and one target
            language), or `None` (a multilingual model, or nothing stated).
    """

    path: Path
    layout: str
    num_layers: int
    d_model: int
    num_heads: int
    ff_dim: int
    activation: str
    max_length: int
    dropout: float
    source_vocabulary: list
    target_vocabulary: list
    shared_embeddings: bool
    pad_id: int
    eos_id: int
    unk_id: int
    start_id: int
    weights: dict
    source_spm: bytes
    target_spm: bytes
    languages: str | None = None


def read_marian(path):
    """Reads a Marian model directory of either layout (see the module docstring).

    Args:
        path: the directory (or a file in it).

    Returns:
        A `MarianCheckpoint`.

    Raises:
        MarianImportError: a missing or damaged file, another architecture, an unsupported
            variant, or disagreeing sizes; the message names the file.
    """
    path = Path(path)
    if path.is_file():
        if path.suffix == ".bin":
            raise MarianImportError(
                f"{path}: a PyTorch .bin checkpoint cannot be read without torch; convert it "
                "to model.safetensors (transformers: model.save_pretrained(dir, "
                "safe_serialization=True)) or use the OPUS-MT release (.npz)")
        path = path.parent
    if not path.is_dir():
        raise MarianImportError(f"{path}: no such directory")
    if (path / "config.json").exists():
        checkpoint = _read_huggingface(path)
        vocabulary_files = (path / "vocab.json", path / (
            "vocab.json" if checkpoint.shared_embeddings else "target_vocab.json"))
    elif list(path.glob("*.npz")):
        checkpoint = _read_opus(path)
        vocabulary_files = _opus_vocabulary_files(path, checkpoint.shared_embeddings)
    else:
        raise MarianImportError(
            f"{path}: neither a Hugging Face MarianMT directory (config.json, model.safetensors, "
            "...) nor an OPUS-MT release folder (*.npz, *.vocab.yml, ...)")
    check_pieces(path, checkpoint, (vocabulary_files[0], vocabulary_files[-1]))
    return checkpoint


# Pieces of a Marian vocabulary that no SentencePiece model holds: transformers' padding,
# the sentence marks, and the target-language tokens of multilingual models (`>>spa<<`).
_NOT_SENTENCEPIECE = re.compile(r"<pad>|<s>|</s>|<unk>|>>[^<>\s]+<<")


def spm_pieces(path, data):
    """The pieces of the SentencePiece model `data` (the bytes of the file `path`), in id order;
    a damaged or cut model is a `MarianImportError` naming `path`."""
    processor = sentencepiece.SentencePieceProcessor()
    try:
        processor.LoadFromSerializedProto(data)
    except (RuntimeError, OSError, TypeError):
        raise MarianImportError(f"{path}: not a SentencePiece model (cut short or damaged); "
                                "copy the model's folder again") from None
    return [processor.IdToPiece(i) for i in range(processor.GetPieceSize())]


def check_pieces(path, checkpoint, vocabulary_files):
    """Every piece of each SentencePiece model is in its side's vocabulary, and every piece of
    a vocabulary is in a SentencePiece model of its side (both, for one shared vocabulary) or
    is one of Marian's own tokens: a `vocab.json` with a piece renamed (of the same size)
    imported cleanly, and the sentences holding that piece translated with `<unk>`.

    Raises:
        MarianImportError: naming both files and the first piece one has and the other lacks.
    """
    sides = (("source.spm", checkpoint.source_spm, checkpoint.source_vocabulary,
              vocabulary_files[0]),
             ("target.spm", checkpoint.target_spm, checkpoint.target_vocabulary,
              vocabulary_files[1]))
    pieces = {name: spm_pieces(path / name, data) for name, data, _, _ in sides}
    for name, _, vocabulary, vocabulary_file in sides:
        known = set(vocabulary)
        missing = [piece for piece in pieces[name] if piece not in known]
        if missing:
            raise MarianImportError(
                f"{vocabulary_file} does not match {path / name}: "
                f"{plural(len(missing), 'piece')} of the SentencePiece model not in the "
                f"vocabulary (the first: {missing[0]!r}); the files belong to different models")
    for _, _, vocabulary, vocabulary_file in sides:
        models = [n for n, _, v, _ in sides if v is vocabulary]
        held = set().union(*(pieces[n] for n in models))
        extra = [piece for piece in vocabulary
                 if piece not in held and not _NOT_SENTENCEPIECE.fullmatch(piece)]
        if extra:
            raise MarianImportError(
                f"{vocabulary_file} does not match {' and '.join(str(path / n) for n in models)}"
                f": {plural(len(extra), 'piece')} of the vocabulary in no SentencePiece model "
                f"(the first: {extra[0]!r}); the files belong to different models")


# ---- Hugging Face layout -------------------------------------------------------------------
def _read_huggingface(path):
    config = _read_json(path / "config.json", dict)
    model_type = config.get("model_type")
    if model_type != "marian":
        raise MarianImportError(
            f"{path / 'config.json'}: model_type {model_type!r} is not a Marian model; only "
            "MarianMT (OPUS-MT) models can be imported")
    if not (path / "model.safetensors").exists() and (path / "pytorch_model.bin").exists():
        raise MarianImportError(
            f"{path / 'pytorch_model.bin'}: a PyTorch .bin checkpoint cannot be read without "
            "torch; convert it to model.safetensors (transformers: model.save_pretrained(dir, "
            "safe_serialization=True))")
    _require(path, HF_FILES)
    if config.get("normalize_before") or config.get("add_final_layer_norm"):
        raise MarianImportError(f"{path / 'config.json'}: pre-norm Marian models (normalize_"
                                "before, add_final_layer_norm) are not supported")
    if config.get("normalize_embedding"):
        raise MarianImportError(f"{path / 'config.json'}: normalize_embedding (a LayerNorm on "
                                "the embeddings) is not supported")
    sizes = _equal_pairs(path / "config.json", config, (
        ("encoder_layers", "decoder_layers"),
        ("encoder_attention_heads", "decoder_attention_heads"),
        ("encoder_ffn_dim", "decoder_ffn_dim")))
    shared = bool(config.get("share_encoder_decoder_embeddings", True))
    source_vocabulary = _vocabulary_from_json(path / "vocab.json")
    target_vocabulary = source_vocabulary
    if not shared:
        _require(path, ("target_vocab.json",))
        target_vocabulary = _vocabulary_from_json(path / "target_vocab.json")
    try:
        weights = read_safetensors(path / "model.safetensors")
    except SafetensorsError as error:
        raise MarianImportError(str(error)) from None
    weights = {name: np.asarray(value, np.float32) for name, value in weights.items()}
    if "model.shared.weight" in weights:
        weights.setdefault("model.encoder.embed_tokens.weight", weights["model.shared.weight"])
        weights.setdefault("model.decoder.embed_tokens.weight", weights["model.shared.weight"])
    vocab_size = config.get("vocab_size")
    target_size = config.get("decoder_vocab_size") or vocab_size
    _check_size(path / "vocab.json", len(source_vocabulary), vocab_size, "vocab_size")
    _check_size(path / ("vocab.json" if shared else "target_vocab.json"),
                len(target_vocabulary), target_size, "decoder_vocab_size")
    pad = config.get("pad_token_id")
    return MarianCheckpoint(
        path=path, layout="huggingface",
        num_layers=sizes["encoder_layers"], d_model=config["d_model"],
        num_heads=sizes["encoder_attention_heads"], ff_dim=sizes["encoder_ffn_dim"],
        activation=_activation(path / "config.json", config.get("activation_function")),
        max_length=int(config.get("max_position_embeddings", 512)),
        dropout=float(config.get("dropout", 0.1)),
        source_vocabulary=source_vocabulary, target_vocabulary=target_vocabulary,
        shared_embeddings=shared, pad_id=pad, eos_id=config.get("eos_token_id", 0),
        unk_id=source_vocabulary.index("<unk>") if "<unk>" in source_vocabulary else 1,
        start_id=config.get("decoder_start_token_id", pad),
        weights=_check_weights(path / "model.safetensors", weights, sizes["encoder_layers"]),
        source_spm=(path / "source.spm").read_bytes(),
        target_spm=(path / "target.spm").read_bytes(),
        languages=_huggingface_languages(path / "tokenizer_config.json"),
    )


def _huggingface_languages(tokenizer_config):
    """`source_lang,target_lang` of MarianTokenizer's config, when both are one code."""
    if not tokenizer_config.is_file():
        return None
    config = _read_json(tokenizer_config, dict)
    return _language_pair([config.get("source_lang")], [config.get("target_lang")])


def _opus_languages(readme):
    """The release README's `source language(s): es` and `target language(s): en`, when each
    names one language (multilingual releases list several)."""
    if not readme.is_file():
        return None
    text = readme.read_text(encoding="utf-8", errors="replace")
    found = [re.search(rf"^\W*{side} language\(s\):(.*)$", text, re.MULTILINE)
             for side in ("source", "target")]
    return _language_pair(*(match[1].split() if match else [] for match in found))


def _language_pair(sources, targets):
    """`"SRC,TGT"` if each list is one language code (`check_language_pair`), else `None`."""
    if len(sources) == len(targets) == 1:
        pair = f"{sources[0]},{targets[0]}"
        try:
            check_language_pair(pair)
            return pair
        except ValueError:
            pass
    return None


# ---- OPUS-MT release layout ----------------------------------------------------------------
def _read_opus(path):
    models = sorted(path.glob("*.npz"))
    if len(models) > 1:
        # Releases with several checkpoints name the best one in decoder.yml.
        models = _models_named_in_decoder_yml(path) or models
    if len(models) != 1:
        raise MarianImportError(f"{path}: {len(models)} .npz files; keep the one to import")
    _require(path, OPUS_FILES)
    npz_path = models[0]
    try:
        with np.load(npz_path) as archive:
            arrays = {name: archive[name] for name in archive.files}
    except (OSError, ValueError) as error:
        raise MarianImportError(f"{npz_path}: not a readable .npz ({error})") from None
    if MODEL_YML not in arrays:
        raise MarianImportError(f"{npz_path}: no {MODEL_YML!r} array (not a Marian model)")
    options = _yaml(npz_path, bytes(np.asarray(arrays.pop(MODEL_YML), np.uint8)).rstrip(b"\0"))
    _check_opus_options(npz_path, options)
    tied_all = _flag(options.get("tied-embeddings-all"))
    shared = tied_all or _flag(options.get("tied-embeddings-src"))
    source_file, target_file = _opus_vocabulary_files(path, shared)
    source_vocabulary = _vocabulary_from_yml(source_file)
    target_vocabulary = _vocabulary_from_yml(target_file) if not shared else source_vocabulary
    num_layers = _equal_pairs(npz_path, options, (("enc-depth", "dec-depth"),))["enc-depth"]
    weights = {}
    for name, array in arrays.items():
        weights.update(_npz_weight(npz_path, name, np.asarray(array, np.float32)))
    pad = len(target_vocabulary)  # transformers' <pad>, appended after Marian's pieces
    embeddings = ("Wemb", "Wemb") if shared else ("encoder_Wemb", "decoder_Wemb")
    for side, name in zip(("encoder", "decoder"), embeddings, strict=True):
        if name not in arrays:
            raise MarianImportError(f"{npz_path}: no {name!r} array")
        table = np.asarray(arrays[name], np.float32)
        weights[f"model.{side}.embed_tokens.weight"] = np.concatenate(
            [table, np.zeros((1, table.shape[1]), np.float32)])
    vocabularies = ((source_file, source_vocabulary, "encoder"),
                    (target_file, target_vocabulary, "decoder"))
    for vocabulary_file, vocabulary, side in vocabularies:
        rows = weights[f"model.{side}.embed_tokens.weight"].shape[0] - 1
        _check_size(vocabulary_file, len(vocabulary), rows, f"the {side} embedding's rows")
    bias = np.asarray(arrays.get("decoder_ff_logit_out_b", np.zeros((1, pad))), np.float32)
    weights["final_logits_bias"] = np.concatenate([bias.reshape(1, -1), [[0.0]]], axis=1)
    source_vocabulary = source_vocabulary + ["<pad>"]
    target_vocabulary = source_vocabulary if shared else target_vocabulary + ["<pad>"]
    return MarianCheckpoint(
        path=path, layout="opus-mt", num_layers=num_layers, d_model=int(options["dim-emb"]),
        num_heads=int(options["transformer-heads"]),
        ff_dim=int(options["transformer-dim-ffn"]),
        activation=_activation(npz_path, options.get("transformer-ffn-activation", "swish")),
        # Marian's sinusoids have no length limit; transformers' conversions keep 512.
        max_length=512,
        dropout=float(options.get("transformer-dropout", 0.1)),
        source_vocabulary=source_vocabulary, target_vocabulary=target_vocabulary,
        shared_embeddings=shared, pad_id=pad, eos_id=source_vocabulary.index("</s>"),
        unk_id=source_vocabulary.index("<unk>"), start_id=pad,
        weights=_check_weights(npz_path, weights, num_layers),
        source_spm=(path / "source.spm").read_bytes(),
        target_spm=(path / "target.spm").read_bytes(),
        languages=_opus_languages(path / "README.md"),
    )


def _check_opus_options(npz_path, options):
    """Refuses the Marian variants the Transformer twins do not implement."""
    kind = options.get("type", "transformer")
    if kind != "transformer":
        raise MarianImportError(f"{npz_path}: Marian model type {kind!r}; only 'transformer' "
                                "models can be imported")
    if "n" in str(options.get("transformer-preprocess", "") or ""):
        raise MarianImportError(f"{npz_path}: a pre-norm model (transformer-preprocess "
                                f"{options.get('transformer-preprocess')!r}) is not supported")
    if str(options.get("transformer-postprocess", "dan")) != "dan":
        raise MarianImportError(f"{npz_path}: transformer-postprocess "
                                f"{options.get('transformer-postprocess')!r} is not supported "
                                "(only 'dan': dropout, add, normalize)")
    if str(options.get("guided-alignment", "none")).lower() not in ("none", "", "false"):
        raise MarianImportError(f"{npz_path}: a model trained with guided alignment is not "
                                "supported")
    if options.get("factors-combine") or options.get("factors-dim-emb") or any(
            str(v).endswith(".fsv") for v in options.get("vocabs", []) or []):
        raise MarianImportError(f"{npz_path}: factored vocabularies are not supported")
    if _flag(options.get("transformer-train-position-embeddings")):
        raise MarianImportError(f"{npz_path}: learned position embeddings are not supported")
    autoregression = options.get("transformer-decoder-autoreg", "self-attention")
    if autoregression != "self-attention":
        raise MarianImportError(f"{npz_path}: decoder {autoregression!r} (not self-attention) "
                                "is not supported")


def _npz_weight(npz_path, name, array):
    """One `.npz` array under its transformers name(s), `(out, in)`; none for embeddings."""
    match = re.fullmatch(r"(encoder|decoder)_l(\d+)_(.+)", name)
    if match is None:
        if name in ("Wemb", "encoder_Wemb", "decoder_Wemb", "decoder_ff_logit_out_b"):
            return {}
        if "alignment" in name or "factor" in name.lower():
            raise MarianImportError(f"{npz_path}: array {name!r}: guided-alignment and factor "
                                    "layers are not supported")
        if name.endswith("_ln_scale_pre") or name.endswith("_ln_bias_pre"):
            raise MarianImportError(f"{npz_path}: array {name!r}: pre-norm or embedding layer "
                                    "norms are not supported")
        raise MarianImportError(f"{npz_path}: unexpected array {name!r}")
    side, layer, rest = match.group(1), int(match.group(2)) - 1, match.group(3)
    target = _NPZ_FIXED_NAMES.get(rest)
    if target is None:
        for pattern, hf_pattern in _NPZ_LAYER_NAMES.items():
            for letter in "qkvo":
                if rest == pattern.format(letter):
                    target = hf_pattern.format("out" if letter == "o" else letter)
    if target is None:
        raise MarianImportError(f"{npz_path}: array {name!r} is not part of a post-norm "
                                "Transformer layer (unsupported variant)")
    value = array.T if array.ndim == 2 and array.shape[0] != 1 else array.reshape(-1)
    return {f"model.{side}.layers.{layer}.{target}": np.ascontiguousarray(value)}


def _models_named_in_decoder_yml(path):
    options = _yaml(path / "decoder.yml", (path / "decoder.yml").read_bytes())
    names = options.get("models") or []
    return [path / Path(name).name for name in names if (path / Path(name).name).exists()]


def _opus_vocabulary_files(path, shared):
    if shared:
        files = sorted(f for f in path.glob("*.yml") if f.name.endswith("vocab.yml")
                       and not f.name.endswith((".src.vocab.yml", ".trg.vocab.yml")))
        files = files or sorted(path.glob("*.src.vocab.yml"))
        if not files:
            raise MarianImportError(f"{path}: no vocabulary file (*.vocab.yml)")
        return files[0], files[0]
    source, target = sorted(path.glob("*.src.vocab.yml")), sorted(path.glob("*.trg.vocab.yml"))
    if not source or not target:
        raise MarianImportError(f"{path}: separate vocabularies need *.src.vocab.yml and "
                                "*.trg.vocab.yml")
    return source[0], target[0]


# ---- shared helpers ------------------------------------------------------------------------
def _require(path, names):
    missing = [name for name in names if not (path / name).exists()]
    if missing:
        raise MarianImportError(f"{path / missing[0]}: missing (a Marian model folder needs "
                                f"{', '.join(names)})")


def _read_json(path, expect):
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise MarianImportError(f"{path}: not valid JSON ({error})") from None
    if not isinstance(value, expect):
        raise MarianImportError(f"{path}: expected a JSON {expect.__name__}")
    return value


def _yaml(path, data):
    try:
        value = yaml.load(data.decode("utf-8"), Loader=yaml.BaseLoader)
    except (UnicodeDecodeError, yaml.YAMLError) as error:
        raise MarianImportError(f"{path}: not valid YAML ({error})") from None
    if not isinstance(value, dict):
        raise MarianImportError(f"{path}: expected a YAML mapping")
    return value


def _flag(value):
    return str(value).lower() == "true"


def _vocabulary_from_json(path):
    return _vocabulary(path, _read_json(path, dict))


def _vocabulary_from_yml(path):
    return _vocabulary(path, _yaml(path, path.read_bytes()))


def _vocabulary(path, mapping):
    """The piece of each id 0..n-1 from a `{piece: id}` mapping; gaps and repeats refused."""
    try:
        ids = {piece: int(index) for piece, index in mapping.items()}
    except (TypeError, ValueError):
        raise MarianImportError(f"{path}: ids must be integers") from None
    pieces = [None] * len(ids)
    for piece, index in ids.items():
        if not 0 <= index < len(ids) or pieces[index] is not None:
            raise MarianImportError(f"{path}: ids are not 0..{len(ids) - 1}, each once "
                                    f"(piece {piece!r} has id {index})")
        pieces[index] = piece
    for piece in ("</s>", "<unk>"):
        if piece not in ids:
            raise MarianImportError(f"{path}: no {piece!r} in the vocabulary")
    if "<s>" in ids:
        raise MarianImportError(f"{path}: the vocabulary has a '<s>' piece, which keras_nmt "
                                "reserves for the decoder start")
    return pieces


def _equal_pairs(path, options, pairs):
    values = {}
    for first, second in pairs:
        if first not in options:
            raise MarianImportError(f"{path}: no {first!r}")
        a, b = int(options[first]), int(options.get(second, options[first]))
        if a != b:
            raise MarianImportError(f"{path}: {first}={a} but {second}={b}; the Transformer "
                                    "twins need equal encoder and decoder sizes")
        values[first] = a
    return values


def _activation(path, name):
    if name not in _ACTIVATIONS:
        raise MarianImportError(f"{path}: feed-forward activation {name!r} is not supported "
                                f"(one of {', '.join(_ACTIVATIONS)})")
    return _ACTIVATIONS[name]


def _check_size(path, count, expected, what):
    if expected is not None and count != int(expected):
        raise MarianImportError(f"{path}: {plural(count, 'piece')} but the model has {expected} "
                                f"({what}); the vocabulary belongs to another model")


def _check_weights(path, weights, num_layers):
    """Every weight a post-norm Marian Transformer needs is there."""
    names = ["final_logits_bias", "model.encoder.embed_tokens.weight",
             "model.decoder.embed_tokens.weight"]
    for i in range(num_layers):
        sides = (("encoder", ("self_attn",)), ("decoder", ("self_attn", "encoder_attn")))
        for side, parts in sides:
            for part in parts:
                for projection in ("q", "k", "v", "out"):
                    names += [f"model.{side}.layers.{i}.{part}.{projection}_proj.{kind}"
                              for kind in ("weight", "bias")]
                names += [f"model.{side}.layers.{i}.{part}_layer_norm.{kind}"
                          for kind in ("weight", "bias")]
            names += [f"model.{side}.layers.{i}.{name}.{kind}" for name in
                      ("fc1", "fc2", "final_layer_norm") for kind in ("weight", "bias")]
    missing = [name for name in names if name not in weights]
    if missing:
        raise MarianImportError(f"{path}: no weight {missing[0]!r} ({len(missing)} missing); "
                                "not a complete post-norm Marian Transformer")
    return weights
