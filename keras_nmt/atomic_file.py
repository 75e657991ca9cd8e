"""Files written whole or not at all: a killed run never leaves half of one behind; the one
reader of the JSON files, which names a damaged file and the way out; and the one checksum
(`sha256_of`) by which a file written earlier is known to be unchanged.

`atomic_path` is the one way every command and the Python API writes an output, by what the
path is (`output_kind`):

- a regular file, a new one, or a symbolic link to one: written beside it under a hidden name
  and renamed over it (whole or not at all), keeping its permissions, and keeping the link (the
  file it points to is replaced, not the link);
- a pipe, FIFO or character device (`/dev/stdout`, `/dev/null`, a terminal), and any path under
  `/dev/` (but `/dev/shm/`) or `/proc/`: written through, never replaced (replacing
  `/dev/stdout` gave the pipe nothing and, as root, made the system's `/dev/stdout` a regular
  file);
- anything else (a folder, a socket, a block device): refused with `OutputError` before
  anything is written.

Example:
    >>> with atomic_path("runs/a/history.json") as temporary:  # .history.json-PID-RANDOM.json
    ...     temporary.write_text("[]\\n")
"""

import contextlib
import hashlib
import json
import os
import secrets
import shutil
import stat
import tempfile
from pathlib import Path


class OutputError(ValueError):
    """An output that cannot be written as asked (a folder, a socket, a block device, an input)."""


# Paths the kernel gives meaning to: written through, whatever they resolve to.
_SPECIAL_ROOTS = ("/dev/", "/proc/")
# ... except the ordinary file systems mounted there (shared memory).
_FILE_SYSTEMS = ("/dev/shm/",)


def output_kind(path):
    """What writing `path` means: ``"file"`` (a regular file, a new one, or a link to one:
    replaced atomically) or ``"stream"`` (a pipe, FIFO, character device, or any path under
    `/dev/` or `/proc/`: written through).

    Raises:
        OutputError: `path` is a folder, a socket or a block device (named in the message).
    """
    try:
        found = os.stat(path)  # follows links: a link is what it points to
    except FileNotFoundError:
        found = None
    except OSError as error:
        raise OutputError(f"{path} cannot be opened ({error.strerror})") from None
    absolute = os.path.abspath(path)
    if absolute.startswith(_SPECIAL_ROOTS) and not absolute.startswith(_FILE_SYSTEMS) and (
            found is None or not stat.S_ISDIR(found.st_mode)):
        return "stream"
    if found is None or stat.S_ISREG(found.st_mode):
        return "file"
    mode = found.st_mode
    if stat.S_ISFIFO(mode) or stat.S_ISCHR(mode):
        return "stream"
    what = ("a folder" if stat.S_ISDIR(mode) else "a socket" if stat.S_ISSOCK(mode)
            else "a block device" if stat.S_ISBLK(mode) else "not a regular file")
    raise OutputError(f"{path} is {what}: an output is written to a file, a pipe or a "
                      "character device")


def same_file(path, other):
    """Whether `path` and `other` (paths, or open file descriptors such as 0 for stdin) are one
    file: the same device and inode, through any link, hard link or relative path."""
    try:
        a = os.fstat(path) if isinstance(path, int) else os.stat(path)
        b = os.fstat(other) if isinstance(other, int) else os.stat(other)
    except OSError:
        return False
    return (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)


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
    """Yields a temporary path to write; when the block succeeds it becomes `path`, by what
    `path` is (`output_kind`).

    A regular file (or a new one): `os.replace` within one folder is atomic, so readers (and a
    resumed run) see the old file or the new one, never a half-written one; the new file keeps
    the old one's permissions (a 0600 file stays 0600). A symbolic link to a file: the file it
    points to is replaced, the link kept. A pipe, FIFO or character device: the temporary
    file's bytes are written through to it once the block succeeds; it is never replaced.

    An exception in the block deletes the temporary file; a kill leaves it, under a name no
    reader opens. An `OSError` of the block that names no file, or the temporary one (a full
    disk, a read-only folder), is raised naming `path`, the file the user knows.

    Args:
        path: the file to write.
        temporary: the temporary path; default `temporary_sibling(path)`, unique to this
            process. Pass another name where hidden files are globbed too (pathlib's `*.npz`
            matches `.1.npz`); only its name is used beside a link's target.

    Raises:
        OutputError: `path` is a folder, a socket or a block device (before the block runs).
    """
    path = Path(path)
    if output_kind(path) == "stream":
        with _through(path) as written:
            yield written
        return
    target = Path(os.path.realpath(path)) if path.is_symlink() else path
    if temporary is None:
        temporary = temporary_sibling(target)
    else:
        temporary = target.with_name(Path(temporary).name) if target != path else Path(temporary)
    try:
        mode = stat.S_IMODE(os.stat(target).st_mode)
    except OSError:
        mode = None
    try:
        yield temporary
        if mode is not None:
            os.chmod(temporary, mode)
        os.replace(temporary, target)  # fails on a folder called `path`: nothing stray is left
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


@contextlib.contextmanager
def _through(path):
    """Yields a temporary file (in the system's temporary folder, named like `path`) whose bytes
    are written to the stream `path` when the block succeeds."""
    with tempfile.TemporaryDirectory(prefix="keras_nmt-") as folder:
        written = Path(folder) / (path.name or "output")
        try:
            yield written
            with open(written, "rb") as source, open(path, "wb") as stream:
                shutil.copyfileobj(source, stream)
        except OSError as error:
            if error.errno is not None and (error.filename is None
                                            or str(folder) in str(error.filename)):
                raise OSError(error.errno, error.strerror, str(path)) from error
            raise


def write_text(path, text, newline=None):
    """Writes `text` (UTF-8) to `path` through `atomic_path`; `newline` as `open`'s."""
    with atomic_path(path) as temporary:
        with open(temporary, "w", encoding="utf-8", newline=newline) as stream:
            stream.write(text)


def write_json(path, value, indent=None):
    """Writes `value` as JSON (one trailing newline) to `path` through `atomic_path`."""
    write_text(path, json.dumps(value, indent=indent) + "\n")


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
