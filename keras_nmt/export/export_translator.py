"""Writing a Translator as a versioned SavedModel, atomically."""

import json
import os
import shutil
import tempfile
from pathlib import Path

import tensorflow as tf

from keras_nmt.inference import RunDirectory, Translator
from keras_nmt.inference.saved_translator import METADATA_FILE


def _as_translator(run_dir_or_translator):
    """A `Translator` and a default export name from a run directory or a `Translator`."""
    if isinstance(run_dir_or_translator, Translator):
        return run_dir_or_translator, "translator"
    path = Path(run_dir_or_translator)
    return RunDirectory.load(path).translator(), path.resolve().name


def next_version(model_dir):
    """1 + the largest integer version directory under `model_dir` (1 when there is none)."""
    model_dir = Path(model_dir)
    versions = [int(p.name) for p in model_dir.glob("*") if p.is_dir() and p.name.isdigit()]
    return max(versions, default=0) + 1


def export_translator(run_dir_or_translator, base_dir="saved_models", name=None, version=None):
    """Exports a translator to `base_dir/name/version/` (TensorFlow Serving's layout).

    The SavedModel is written to a hidden temporary directory next to the version directory
    (TensorFlow Serving only loads all-digit names) and renamed into place when complete, so an
    interrupted export never leaves a half-written model where a server would load it; the
    temporary directory is removed on failure.

    Args:
        run_dir_or_translator: a run directory (written by `apps/train.py`) or a `Translator`.
        base_dir: the directory of all exported models.
        name: the model's name (default: the run directory's name, or "translator").
        version: a positive int (default: one more than the largest existing version).

    Returns:
        The `Path` of the version directory.

    Raises:
        FileExistsError: the version directory already exists.
    """
    translator, default_name = _as_translator(run_dir_or_translator)
    model_dir = Path(base_dir) / (name or default_name)
    model_dir.mkdir(parents=True, exist_ok=True)
    version = next_version(model_dir) if version is None else int(version)
    if version < 1:
        raise ValueError(f"version must be a positive integer, got {version}")
    final = model_dir / str(version)
    if final.exists():
        raise FileExistsError(f"{final} already exists; choose another --version")
    temporary = Path(tempfile.mkdtemp(prefix=f".{version}.partial-", dir=model_dir))
    try:
        signatures = translator.signatures()  # traces (and settles the length-penalty mode)
        tf.saved_model.save(translator, str(temporary), signatures=signatures)
        extra = temporary / "assets.extra"
        extra.mkdir(exist_ok=True)
        (extra / METADATA_FILE).write_text(json.dumps(translator.metadata(), indent=2) + "\n")
        os.rename(temporary, final)  # atomic on one file system; fails if `final` appeared
    except BaseException:
        shutil.rmtree(temporary, ignore_errors=True)
        raise
    return final
