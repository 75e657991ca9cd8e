"""A `Translator` saved to `base_dir/name/version/` (TensorFlow Serving's layout), whole or not
at all, without a lock: for a translator made in Python (`keras-nmt export` and
`keras_nmt.export_translator` write through the workshop's folder writer instead: a lock, an
owner in the hidden name, and `--force`).

Example:
    >>> path = save_translator(translator, "saved_models", "dates")   # saved_models/dates/1
    >>> reloaded = tf.saved_model.load(str(path))
    >>> reloaded.signatures["serving_default"](tf.constant(["3rd of March 2021"]))
"""

import errno
import os
import secrets
import shutil
from numbers import Integral
from pathlib import Path

from keras_nmt.export.saved_model import write_saved_model
from keras_nmt.workshop.translators.formats import check_model_name


def next_version(model_dir):
    """1 + the largest integer version directory under `model_dir` (1 when there is none)."""
    model_dir = Path(model_dir)
    versions = [int(p.name) for p in model_dir.glob("*") if p.is_dir() and p.name.isdigit()]
    return max(versions, default=0) + 1


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
