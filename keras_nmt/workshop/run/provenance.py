"""What a model is, beyond its weights: its languages, its tokenizers' fingerprints and whom to
credit. Every format records it and every command reads it the same way.

- **Languages**: each side's language code where it is known (`keras-nmt train --languages
  es,en`, or what an imported Marian model states), else the side's identity from training: the
  column of the data file it was read from ("column 1 of spa-eng.{split}.tsv"). Direction is a
  property of languages: a test file's columns are a property of that file, and which of them
  feeds the model is decided by checking the file against the model
  (`keras_nmt.workshop.translators.column_fit`).
- **Tokenizers**: the SHA-256 fingerprint of each tokenizer folder (its file names and
  contents). A model is refused with the tokenizers of another model: the ids would mean other
  tokens, and the translations would be nonsense without an error.
- **The model**: the fingerprint of its weights (`weights_fingerprint`: each weight's shape,
  type and values), recorded when `model.keras` is written, so that tokenizers copied
  together with the record from another run are refused too (the record then names other
  weights). Any model, recorded or not (older runs), is refused with tokenizers whose sizes are
  not its embeddings' (`check_model_binding`). What cannot be bound: an older run without a
  record, given other tokenizers of its very sizes (nothing of the pairing was kept): opening
  one says so in a warning (`warn_unrecorded`), and its next `keras-nmt train` writes the
  record of what it holds then.
- **An export's engine files**: the SHA-256 of each file CTranslate2 wrote (`model.bin`, its
  `config.json` and vocabularies: `engine_files`), checked whenever the export is opened, so
  that its weights are bound to the tokenizers beside them as `model.keras` is.
- **Attribution**: for a model that started from someone else's (an imported OPUS-MT model, and
  every run fine-tuned from it or exported from those), its name, licence, source and what was
  changed, so that the credit a licence such as CC-BY asks for travels with it.

A run folder keeps the fingerprints and the attribution in `provenance.json` (its languages
are its `config.json`'s); both exports carry the whole record (`PROVENANCE_FILE` beside their
metadata).

Example:
    >>> run_languages({"languages": None, "source_column": 1, "target_column": None,
    ...                "data": "spa-eng.{split}.tsv"})["source"]
    {'code': None, 'column': 1, 'data': 'spa-eng.{split}.tsv'}
    >>> language_name({'code': None, 'column': 1, 'data': 'spa-eng.{split}.tsv'})
    'column 1 of spa-eng.{split}.tsv'
"""

import hashlib
import sys
from pathlib import Path

import numpy as np

from keras_nmt.plural import plural
from keras_nmt.saved_files import read_json, sha256_of
from keras_nmt.workshop.atomic_file import write_json
from keras_nmt.workshop.corpora.builtin import BUILTIN_DATASETS
from keras_nmt.workshop.marian_tokenizer import load_run_tokenizer

PROVENANCE_FILE = "provenance.json"
# What `keras-nmt import` records of an imported model's origin (an import made before
# `PROVENANCE_FILE` existed has only this).
IMPORT_FILE = "imported.json"
TOKENIZERS_DIR = "tokenizers"  # in a run folder and a CTranslate2 export (`run_folder`)
SIDES = ("source", "target")


def file_digests(folder):
    """`{file name: SHA-256}` of every file directly in `folder`, in name order: a tokenizer
    side's files (`tokenizer_files`), or what an inference engine wrote of a model (a
    CTranslate2 export's `model.bin`, `config.json` and vocabularies, recorded as
    `"engine_files"` so that the weights it reads are bound to the tokenizers beside them as a
    run's `model.keras` is by `"weights"`)."""
    return {path.name: sha256_of(path) for path in sorted(Path(folder).iterdir())
            if path.is_file()}


def tokenizer_fingerprint(directory):
    """The SHA-256 of a tokenizer folder: every file's name and content, in name order."""
    digest = hashlib.sha256()
    for name, file_digest in file_digests(directory).items():
        digest.update(f"{name}\0{file_digest}\n".encode())
    return digest.hexdigest()


def tokenizer_fingerprints(tokenizers):
    """`{"source": fingerprint, "target": fingerprint}` of a `tokenizers/` folder."""
    return {side: tokenizer_fingerprint(Path(tokenizers) / side) for side in SIDES}


def tokenizer_files(tokenizers):
    """`{"source": {file name: SHA-256}, "target": ...}` of a `tokenizers/` folder: by which a
    mismatch is named down to the file."""
    return {side: file_digests(Path(tokenizers) / side) for side in SIDES}


def tokenizer_record(tokenizers):
    """The record's part about a `tokenizers/` folder: `{"tokenizers": tokenizer_fingerprints,
    "tokenizer_files": tokenizer_files}`."""
    return {"tokenizers": tokenizer_fingerprints(tokenizers),
            "tokenizer_files": tokenizer_files(tokenizers)}


def check_tokenizers(tokenizers, record, record_file):
    """Raises `ValueError` naming the tokenizer file (or folder) whose fingerprint is not the
    one `record_file` holds (`record`: its dict, `read_provenance`; `{}` for a model older
    than the record). The file is named where the record lists each file's SHA-256
    (`tokenizer_files`), the folder otherwise."""
    recorded, files = record.get("tokenizers"), record.get("tokenizer_files")
    if not recorded:
        return
    for side in SIDES:
        folder = Path(tokenizers) / side
        if recorded.get(side) and folder.is_dir() and (
                tokenizer_fingerprint(folder) != recorded[side]):
            load_run_tokenizer(folder)  # a damaged file of its own is named as such first
            known = files.get(side) if isinstance(files, dict) else None
            now = tokenizer_files(tokenizers)[side] if known else {}
            differing = [name for name in sorted({*(known or {}), *now})
                         if (known or {}).get(name) != now.get(name)]
            if differing:
                what = (f"{folder / differing[0]} is not the file of the {side} tokenizer this "
                        f"model was trained with ({plural(len(differing), 'file')} of "
                        f"{folder} {'differs' if len(differing) == 1 else 'differ'} from the "
                        f"fingerprints in {record_file})")
            else:
                what = (f"{folder} is not the {side} tokenizer this model was trained with (its "
                        f"fingerprint differs from the one in {record_file})")
            raise ValueError(f"{what}: its ids would mean other tokens. Copy the model's own "
                             "tokenizers back, or export or import it again")


def check_engine_files(folder, record, record_file):
    """Raises `ValueError` naming the first file of `folder` that `record_file` (`record`:
    its dict) lists under `"engine_files"` and that is missing or not the file recorded (an
    export older than the record lists none: nothing is checked)."""
    recorded = record.get("engine_files")
    if not isinstance(recorded, dict):
        return
    for name, digest in sorted(recorded.items()):
        path = Path(folder) / name
        if not path.is_file():
            raise ValueError(f"{path} is missing: {record_file} records it as part of this "
                             "model. Copy it back, or export the model again")
        if sha256_of(path) != digest:
            raise ValueError(
                f"{path} is not the file this model was exported with (its SHA-256 differs "
                f"from the one in {record_file}): the weights are not those of the tokenizers "
                "beside them. Copy the export's own files back, or export it again")


def weights_fingerprint(model):
    """The SHA-256 of `model`'s weights: of each weight's shape, type and values, taken in
    sorted order, so that neither the weights' order nor their names (which a reload may
    build differently) changes it, only their values."""
    each = []
    for weight in model.weights:
        values = np.ascontiguousarray(weight.numpy())
        digest = hashlib.sha256(f"{values.shape}\0{values.dtype}\n".encode())
        digest.update(values.tobytes())
        each.append(digest.hexdigest())
    return hashlib.sha256("\n".join(sorted(each)).encode()).hexdigest()


def record_weights(run, model):
    """Adds `model`'s `weights_fingerprint` to the `PROVENANCE_FILE` of `run` (written just
    after its `model.keras`)."""
    path = Path(run) / PROVENANCE_FILE
    write_json(path, {**read_provenance(path), "weights": weights_fingerprint(model)}, indent=2)


def check_model_binding(model, tokenizers, model_file, record, record_file):
    """Raises `ValueError` when the model loaded from `model_file` is not the one of its
    `tokenizers` (`(source, target)`, loaded from the folder beside it): their vocabulary
    sizes are not its embeddings' (checked for every model), or its weights are not those
    `record_file` fingerprinted (`record`: its dict; a model written before the fingerprint
    has none). The message names the file."""
    folder = Path(model_file).parent
    for side, tokenizer in zip(SIDES, tokenizers, strict=True):
        size = getattr(model, f"{side}_vocab_size", None)
        if size is not None and size != tokenizer.vocab_size:
            raise ValueError(
                f"{folder / TOKENIZERS_DIR / side} has {plural(tokenizer.vocab_size, 'token')}, "
                f"but the model in {model_file} reads {size:,}: they are not each other's. "
                "Copy the model's own tokenizers back, or train or import it again")
    recorded = record.get("weights")
    if recorded and weights_fingerprint(model) != recorded:
        raise ValueError(
            f"{model_file} is not the model {record_file} records (its weights' fingerprint "
            f"differs): the tokenizers and the record beside it are another model's. Put the "
            "model's own files back together, or train or import it again")


def run_languages(config):
    """Each side's language of a run's `config.json` dict: ``{"code", "column", "data"}``
    (`code` None where the run was not told it; `column` None for an imported model, which
    read no data file)."""
    codes = (config.get("languages") or "").split(",") if config.get("languages") else [None] * 2
    source = config.get("source_column", 0)
    target = config.get("target_column")
    columns = (source, 1 - source if target is None else target)
    data = config.get("data") or None
    by_column = data is not None and data not in BUILTIN_DATASETS  # a file has columns
    return {side: {"code": code, "column": column if by_column else None, "data": data}
            for side, code, column in zip(SIDES, codes, columns, strict=True)}


def language_name(side, role="source"):
    """A side of `run_languages` in words: its code, else its column of the training data, else
    the built-in data's sources or targets (`role`).

    Example:
        >>> language_name({"code": "es", "column": 1, "data": "x.tsv"})
        'es'
        >>> language_name({"code": None, "column": None, "data": "dates"}, "target")
        "the built-in dates' targets"
    """
    if side.get("code"):
        return side["code"]
    if side.get("column") is not None and side.get("data"):
        return f"column {side['column']} of {side['data']}"
    if side.get("data") in BUILTIN_DATASETS:
        return f"the built-in {side['data']}' {role}s"
    return "unknown"


def warn_unrecorded(folder, model_name, way_out):
    """Prints one `warning:` line (stderr) when `folder` (a run folder or an export) has no
    `PROVENANCE_FILE` (written by older code, or the file was deleted): nothing then binds its
    model (`model_name`, e.g. `model.keras`) to the tokenizers beside it but their vocabulary
    sizes, so another model's tokenizers of those sizes would translate into nonsense without
    an error. `way_out`: how to write the record. Returns whether it warned."""
    folder = Path(folder)
    if (folder / PROVENANCE_FILE).is_file():
        return False
    print(f"warning: {folder / PROVENANCE_FILE} is missing (written by older code, or "
          f"deleted): nothing binds {folder / model_name} to {folder / TOKENIZERS_DIR} but "
          "their vocabulary sizes, and another model's tokenizers of those sizes would "
          f"translate into nonsense without an error; {way_out}", file=sys.stderr)
    return True


def read_provenance(path):
    """The JSON dict of a `PROVENANCE_FILE`, or `{}` where the model has none (older)."""
    path = Path(path)
    if not path.is_file():
        return {}
    return read_json(path, "export, import or train it again", expect=dict)


def record_run_provenance(run, attribution=None, model=None):
    """Writes `run`'s `PROVENANCE_FILE`: its tokenizers' fingerprints, `attribution` and, for
    a `model` given (already saved in `run`), its `weights_fingerprint`."""
    record = {**tokenizer_record(Path(run) / TOKENIZERS_DIR), "attribution": attribution}
    if model is not None:
        record["weights"] = weights_fingerprint(model)
    write_json(Path(run) / PROVENANCE_FILE, record, indent=2)


def run_attribution(run):
    """The attribution of a run folder: its `PROVENANCE_FILE`'s, else (an import older than
    it) its `IMPORT_FILE`, else None."""
    attribution = read_provenance(Path(run) / PROVENANCE_FILE).get("attribution")
    if attribution is None and (Path(run) / IMPORT_FILE).is_file():
        attribution = read_json(Path(run) / IMPORT_FILE, "import it again", expect=dict)
    return attribution


def run_provenance(run, config):
    """The whole record of a run folder: `{"languages", "tokenizers", "tokenizer_files",
    "weights", "attribution"}` (the fingerprints None for a run older than them)."""
    recorded = read_provenance(Path(run) / PROVENANCE_FILE)
    return {"languages": run_languages(config), "tokenizers": recorded.get("tokenizers"),
            "tokenizer_files": recorded.get("tokenizer_files"),
            "weights": recorded.get("weights"), "attribution": run_attribution(run)}


def derived_attribution(attribution, change):
    """`attribution` with one more entry in its `changes` (None stays None)."""
    if not attribution:
        return None
    return {**attribution, "changes": [*attribution.get("changes", []), change]}
