"""Files written whole or not at all: a killed run never leaves half of one behind. (They are
read back by `keras_nmt.saved_files`, which names a damaged one.)

Example:
    >>> with atomic_path("runs/a/history.json") as temporary:  # .history.json-PID-RANDOM.json
    ...     temporary.write_text("[]\\n")
"""

import contextlib
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
