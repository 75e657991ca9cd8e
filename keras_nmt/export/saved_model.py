"""A `Translator` written as a versioned SavedModel: its signatures, whole or not at all.

The lesson is one call: ``tf.saved_model.save(translator, path, signatures=...)``. The
`Translator` is a ``tf.Module`` whose ``tf.function`` s tokenize, decode and detokenize
(``serving_default`` greedy, ``beam_search``, ``attention``; `keras_nmt/inference/translator.py`
defines them), so the SavedModel holds the whole path from strings to strings and reloads with
plain TensorFlow and tensorflow-text. Around that call: TensorFlow Serving's layout
(``base_dir/name/version/``), and an atomic write (a hidden temporary folder renamed into place).

Example:
    >>> path = save_translator(translator, "saved_models", "dates")   # saved_models/dates/1
    >>> reloaded = tf.saved_model.load(str(path))
    >>> reloaded.signatures["serving_default"](tf.constant(["3rd of March 2021"]))
"""

import errno
import json
import os
import shutil
import tempfile
from pathlib import Path

import tensorflow as tf

from keras_nmt.export.formats import check_model_name
from keras_nmt.inference.translator import METADATA_FILE


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


def save_translator(translator, base_dir="saved_models", name="translator", version=None,
                    metadata=None, write_extra=None):
    """Saves `translator` to `base_dir/name/version/` (TensorFlow Serving's layout).

    The SavedModel is written to a hidden temporary directory next to the version directory
    (TensorFlow Serving only loads all-digit names) and renamed into place when complete, so an
    interrupted export never leaves a half-written model where a server would load it; the
    temporary directory is removed on failure.

    Args:
        translator: a `keras_nmt.inference.translator.Translator`.
        base_dir: the directory of all exported models.
        name: the model's name (a folder name).
        version: a positive int (default: one more than the largest existing version).
        metadata: more entries for `assets.extra/METADATA_FILE`, beside the translator's own
            `metadata()` (length limits, largest beam).
        write_extra: a function called with the `assets.extra` folder to write more files
            there before the export is renamed into place (the workshop's run facts).

    Returns:
        The `Path` of the version directory.

    Raises:
        FileExistsError: the chosen version directory already exists. Without a chosen
            version, an export that loses a race with another takes the next free number.
    """
    check_model_name(name)
    model_dir = Path(base_dir) / name
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
        (extra / METADATA_FILE).write_text(
            json.dumps({**translator.metadata(), **(metadata or {})}, indent=2) + "\n")
        if write_extra is not None:
            write_extra(extra)
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
