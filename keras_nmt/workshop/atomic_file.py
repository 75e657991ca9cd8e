"""Files written whole or not at all: a killed run never leaves half of one behind; the one
reader of the JSON files, which names a damaged file and the way out; and the one checksum
(`sha256_of`) by which a file written earlier is known to be unchanged.

Example:
    >>> with atomic_path("runs/a/history.json") as temporary:  # .history.json-PID-RANDOM.json
    ...     temporary.write_text("[]\\n")
"""

import contextlib
import hashlib
import json
import os
import secrets
from pathlib import Path


def temporary_sibling(path):
    """A hidden name beside `path`, unique to this process and call: `.NAME-PID-RANDOM` plus
    NAME's extensions (Keras' `save` and `save_weights` check them). Two processes writing one
    file never share a temporary file, so neither can rename the other's half into place.

    Example:
        >>> temporary_sibling("out/model.keras").name  # doctest: +SKIP
        '.model.keras-4242-9f86d081.keras'
    """
    path = Path(path)
    return path.with_name(f".{path.name}-{os.getpid()}-{secrets.token_hex(4)}"
                          f"{''.join(path.suffixes)}")


def temporary_pattern(name):
    """The glob of every `temporary_sibling` of a file called `name` (what a kill leaves)."""
    return f".{name}-*"


@contextlib.contextmanager
def atomic_path(path, temporary=None):
    """Yields a temporary path beside `path`; it replaces `path` when the block succeeds.

    `os.replace` within one folder is atomic: readers (and a resumed run) see the old file or
    the new one, never a half-written one. An exception in the block deletes the temporary file;
    a kill leaves it, under a name no reader opens. An `OSError` of the block that names no
    file, or the temporary one (a full disk, a read-only folder), is raised naming `path`.

    Args:
        path: the file to write.
        temporary: the temporary path; default `temporary_sibling(path)`, unique to this
            process. Pass another name where hidden files are globbed too (pathlib's `*.npz`
            matches `.1.npz`).
    """
    path = Path(path)
    temporary = Path(temporary) if temporary is not None else temporary_sibling(path)
    try:
        yield temporary
        os.replace(temporary, path)  # fails on a folder called `path`: nothing stray is left
    except OSError as error:
        temporary.unlink(missing_ok=True)
        # `write()` reports a full disk without a path, `open()` names the hidden temporary:
        # the error names the file the user knows.
        if error.errno is not None and error.filename in (None, str(temporary)):
            raise OSError(error.errno, error.strerror, str(path)) from error
        raise
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def write_json(path, value, indent=None):
    """Writes `value` as JSON (one trailing newline) to `path` through `atomic_path`."""
    with atomic_path(path) as temporary:
        temporary.write_text(json.dumps(value, indent=indent) + "\n")


def read_json(path, remedy, expect=None, error=ValueError):
    """The JSON value in `path`; a damaged file raises `error` naming it and `remedy`.

    Files are written whole (`write_json`), so a damaged one was cut short or changed by hand
    (a failed copy, a full disk): the message says which file and what to do, in one line.

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
