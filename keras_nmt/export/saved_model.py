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
import secrets
import shutil
from numbers import Integral
from pathlib import Path

import tensorflow as tf

from keras_nmt.export.formats import check_model_name
from keras_nmt.inference.translator import METADATA_FILE


def next_version(model_dir):
    """1 + the largest integer version directory under `model_dir` (1 when there is none)."""
    model_dir = Path(model_dir)
    versions = [int(p.name) for p in model_dir.glob("*") if p.is_dir() and p.name.isdigit()]
    return max(versions, default=0) + 1


def _make_readable(directory):
    """The usual 0755 folders and 0644 files (mkdtemp makes 0700, unreadable to a server)."""
    for root, _, files in os.walk(directory):
        os.chmod(root, 0o755)
        for name in files:
            os.chmod(os.path.join(root, name), 0o644)


def write_saved_model(translator, folder, metadata=None, write_extra=None):
    """Writes `translator` as a SavedModel into the folder `folder` (made when missing).

    The lesson's one call, ``tf.saved_model.save``, with the `Translator`'s signatures, plus
    ``assets.extra/METADATA_FILE`` (the translator's `metadata()` and `metadata`) and whatever
    `write_extra` writes there; every folder 0755 and file 0644, so a server can read them.
    Nothing here is atomic: `save_translator` (and the workshop's folder writer) write into a
    hidden folder and move it into place.

    Args:
        translator: a `keras_nmt.inference.translator.Translator`.
        folder: the folder to write.
        metadata: more entries for `assets.extra/METADATA_FILE`.
        write_extra: a function called with the `assets.extra` folder to write more files there.
    """
    folder = Path(folder)
    tf.saved_model.save(translator, str(folder), signatures=translator.signatures())
    extra = folder / "assets.extra"
    extra.mkdir(exist_ok=True)
    (extra / METADATA_FILE).write_text(
        json.dumps({**translator.metadata(), **(metadata or {})}, indent=2) + "\n")
    if write_extra is not None:
        write_extra(extra)
    _make_readable(folder)


def save_translator(translator, base_dir="saved_models", name="translator", version=None,
                    metadata=None, write_extra=None):
    """Saves `translator` to `base_dir/name/version/` (TensorFlow Serving's layout).

    The SavedModel is written (`write_saved_model`) to a hidden temporary directory next to the
    version directory (TensorFlow Serving only loads all-digit names) and renamed into place
    when complete, so an interrupted export never leaves a half-written model where a server
    would load it; the temporary directory is removed on failure. (`keras-nmt export` writes
    through the workshop's folder writer instead: a lock, an owner in the hidden name, and
    `--force`.)

    Args:
        translator: a `keras_nmt.inference.translator.Translator`.
        base_dir: the directory of all exported models.
        name: the model's name (a folder name).
        version: a positive int (default: one more than the largest existing version).
        metadata, write_extra: as in `write_saved_model`.

    Returns:
        The `Path` of the version directory.

    Raises:
        FileExistsError: the chosen version directory already exists. Without a chosen
            version, an export that loses a race with another takes the next free number.
    """
    check_model_name(name)
    check_version(version)
    model_dir = Path(base_dir) / name
    model_dir.mkdir(parents=True, exist_ok=True)
    chosen = version
    version = next_version(model_dir) if chosen is None else int(chosen)
    final = model_dir / str(version)
    if final.exists():
        raise FileExistsError(f"{final} already exists; choose another --version")
    temporary = model_dir / f".{version}.partial-{secrets.token_hex(8)}"
    temporary.mkdir()
    try:
        write_saved_model(translator, temporary, metadata, write_extra)
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
    except Exception as error:
        shutil.rmtree(temporary, ignore_errors=True)
        if str(temporary) not in str(error):
            raise
        # TensorFlow's `.1.partial-.../saved_model.pb.tmp...`: name the folder the user knows.
        code = getattr(error, "errno", None) or (errno.ENOSPC if "No space" in str(error) else 5)
        raise OSError(code, os.strerror(code), str(final)) from error
    except BaseException:
        shutil.rmtree(temporary, ignore_errors=True)
        raise
    return final


def check_version(version):
    """Refuses a version that is not a positive integer (`int(1.5)` exported version 1)."""
    if version is not None and (isinstance(version, bool) or not isinstance(version, Integral)
                                or version < 1):
        raise ValueError(f"version must be a positive integer, got {version!r}")
