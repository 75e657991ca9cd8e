"""Writing a Translator as a versioned SavedModel, atomically."""

import errno
import json
import os
import shutil
import tempfile
from pathlib import Path

import tensorflow as tf

from keras_nmt.atomic_file import write_json
from keras_nmt.decoding.decoding_options import DEFAULT_MAX_BEAM_SIZE
from keras_nmt.export.formats import check_model_name
from keras_nmt.inference import RunDirectory, Translator
from keras_nmt.inference.provenance import PROVENANCE_FILE, run_provenance
from keras_nmt.inference.run_directory import DATA_FILE, TOKENIZERS_DIR, run_columns
from keras_nmt.inference.saved_translator import METADATA_FILE


def _as_translator(run_dir_or_translator, max_beam_size):
    """A `Translator`, a default export name and what the export carries of its run
    (`run_data`; nothing for a bare `Translator`) from a run directory or a `Translator`."""
    if isinstance(run_dir_or_translator, Translator):
        return run_dir_or_translator, "translator", ({}, None, None)
    path = Path(run_dir_or_translator)
    run = RunDirectory.load(path)
    return run.translator(max_beam_size=max_beam_size), path.resolve().name, run_data(run)


def run_data(run):
    """``(facts, data_file, run)`` an export carries of its run: the columns and the direction
    it read its data in (``source_column``, ``target_column``, ``data``), the path of its
    `DATA_FILE` (fingerprints and profile; None for a run older than it) and the run."""
    source, target = run_columns(run.config)
    facts = {"source_column": source, "target_column": target, "data": run.config.get("data")}
    data_file = run.path / DATA_FILE
    return facts, (data_file if data_file.is_file() else None), run


def next_version(model_dir):
    """1 + the largest integer version directory under `model_dir` (1 when there is none)."""
    model_dir = Path(model_dir)
    versions = [int(p.name) for p in model_dir.glob("*") if p.is_dir() and p.name.isdigit()]
    return max(versions, default=0) + 1


def _pid_alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's live process
        return True
    return True


def remove_stale_partials(model_dir):
    """Deletes `.N.partial-PID-*` folders of exports whose process no longer runs (killed)."""
    for path in Path(model_dir).glob(".*.partial-*"):
        pid = path.name.split(".partial-", 1)[1].split("-", 1)[0]
        if pid.isdigit() and not _pid_alive(int(pid)):
            shutil.rmtree(path, ignore_errors=True)


def _make_readable(directory):
    """The usual 0755 folders and 0644 files (mkdtemp makes 0700, unreadable to a server)."""
    for root, _, files in os.walk(directory):
        os.chmod(root, 0o755)
        for name in files:
            os.chmod(os.path.join(root, name), 0o644)


def export_translator(run_dir_or_translator, base_dir="saved_models", name=None, version=None,
                      max_beam_size=DEFAULT_MAX_BEAM_SIZE):
    """Exports a translator to `base_dir/name/version/` (TensorFlow Serving's layout).

    The SavedModel is written to a hidden temporary directory next to the version directory
    (TensorFlow Serving only loads all-digit names) and renamed into place when complete, so an
    interrupted export never leaves a half-written model where a server would load it; the
    temporary directory is removed on failure.

    Args:
        run_dir_or_translator: a run directory (written by `keras-nmt train`) or a `Translator`.
        base_dir: the directory of all exported models.
        name: the model's name (default: the run directory's name, or "translator").
        version: a positive int (default: one more than the largest existing version).
        max_beam_size: for a run directory, the largest beam size the export serves (each size
            is a function of its own in the SavedModel); a `Translator` brings its own.

    Returns:
        The `Path` of the version directory.

    Raises:
        FileExistsError: the chosen version directory already exists. Without a chosen
            version, an export that loses a race with another takes the next free number.
    """
    if name is not None:
        check_model_name(name)
    translator, default_name, (facts, data_file, run) = _as_translator(run_dir_or_translator,
                                                                       max_beam_size)
    model_dir = Path(base_dir) / (name or default_name)
    model_dir.mkdir(parents=True, exist_ok=True)
    remove_stale_partials(model_dir)
    chosen = version
    version = next_version(model_dir) if chosen is None else int(chosen)
    if version < 1:
        raise ValueError(f"version must be a positive integer, got {version}")
    final = model_dir / str(version)
    if final.exists():
        raise FileExistsError(f"{final} already exists; choose another --version")
    # The pid in the name tells a later export whether this folder's writer was killed.
    temporary = Path(tempfile.mkdtemp(prefix=f".{version}.partial-{os.getpid()}-", dir=model_dir))
    try:
        tf.saved_model.save(translator, str(temporary), signatures=translator.signatures())
        extra = temporary / "assets.extra"
        extra.mkdir(exist_ok=True)
        metadata = {**translator.metadata(), **facts}
        (extra / METADATA_FILE).write_text(json.dumps(metadata, indent=2) + "\n")
        if data_file is not None:
            shutil.copyfile(data_file, extra / DATA_FILE)
        if run is not None:
            # Its languages, tokenizers' fingerprints and attribution travel with it, and its
            # tokenizers' files, by which a data file's columns are checked against it.
            write_json(extra / PROVENANCE_FILE, run_provenance(run.path, run.config), indent=2)
            shutil.copytree(run.path / TOKENIZERS_DIR, extra / TOKENIZERS_DIR)
        _make_readable(temporary)
        while True:
            try:
                os.rename(temporary, final)  # atomic on one file system; fails if `final` exists
                break
            except OSError as error:
                if error.errno not in (errno.EEXIST, errno.ENOTEMPTY):
                    raise
                if chosen is not None:  # another export took this very version meanwhile
                    raise FileExistsError(
                        f"{final} was written by another export meanwhile; choose another "
                        "--version"
                    ) from None
                final = model_dir / str(next_version(model_dir))  # concurrent export: next one
    except BaseException:
        shutil.rmtree(temporary, ignore_errors=True)
        raise
    return final
