"""Reading the files a run or a tokenizer saved: JSON that names a damaged file, and SHA-256.

The files are written whole (`keras_nmt.workshop.atomic_file` for a run's, `Tokenizer.save` for a
tokenizer's), so a damaged one was cut short or changed by hand: the reader names the file and
the way out in one line, and the checksums let a loader tell a changed file from the saved one.
"""

import hashlib
import json
from pathlib import Path


def read_json(path, remedy, expect=None, error=ValueError):
    """The JSON value in `path`; a damaged file raises `error` naming it and `remedy` in one
    line (see the module).

    Args:
        path: the file.
        remedy: the way out, e.g. ``"add --fresh to start again"``.
        expect: the type the value must have (e.g. `dict`), or None for any.
        error: the exception class raised.

    Example:
        >>> read_json("runs/a/config.json", "train again", expect=dict)  # doctest: +SKIP
        ValueError: runs/a/config.json is damaged (empty); train again
    """
    path = Path(path)
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as cause:
        state = "empty" if not path.stat().st_size else f"not JSON: {cause}"
        raise error(f"{path} is damaged ({state}); {remedy}") from None
    if expect is not None and not isinstance(value, expect):
        raise error(f"{path} is damaged (not a JSON {expect.__name__}); {remedy}")
    return value


def sha256_of(path):
    """The SHA-256 of the file at `path`, in hex (read in 1 MiB blocks)."""
    digest = hashlib.sha256()
    with open(path, "rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()
