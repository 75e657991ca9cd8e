"""The one way every command writes an output the user named (`--output`, `--json`, reports,
tables, plots and the attention plots in their folder), by what the path is (`output_kind`):

- a regular file, a new one, or a symbolic link to one: written beside it under a hidden name
  and renamed over it (`atomic_file.atomic_path`: whole or not at all), keeping its
  permissions, and keeping the link (the file it points to is replaced, not the link);
- a pipe, FIFO or character device (`/dev/stdout`, `/dev/null`, a terminal), and any path under
  `/dev/` (but `/dev/shm/`) or `/proc/`: written through, never replaced (replacing
  `/dev/stdout` gave the pipe nothing and, as root, made the system's `/dev/stdout` a regular
  file);
- anything else (a folder, a socket, a block device): refused with `OutputError` before
  anything is written.

`keras_nmt.workshop.arguments.check_outputs` applies the same rule to the flags before any work.

Example:
    >>> write_text("/dev/stdout", "hola\\n")  # written through: the pipe gets it
"""

import contextlib
import json
import os
import shutil
import stat
import tempfile
from pathlib import Path

from keras_nmt.workshop.atomic_file import atomic_path, temporary_sibling

# Paths the kernel gives meaning to: written through, whatever they resolve to ...
_SPECIAL_ROOTS = ("/dev/", "/proc/")
# ... except the ordinary file systems mounted there (shared memory).
_FILE_SYSTEMS = ("/dev/shm/",)


class OutputError(ValueError):
    """An output that cannot be written as asked (a folder, a socket, a block device)."""


def output_kind(path):
    """``"file"`` (replaced atomically) or ``"stream"`` (written through) for `path`; an
    `OutputError` naming it for a folder, a socket or a block device."""
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
    """Whether `path` and `other` (paths, or descriptors such as 0 for stdin) are one file: the
    same device and inode, through any link, hard link or relative path."""
    try:
        a = os.fstat(path) if isinstance(path, int) else os.stat(path)
        b = os.fstat(other) if isinstance(other, int) else os.stat(other)
    except OSError:
        return False
    return (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)


@contextlib.contextmanager
def output_path(path):
    """Yields a temporary path to write; when the block succeeds it becomes `path` by what
    `path` is (see the module). An `OSError` naming the temporary names `path`.

    Raises:
        OutputError: `path` is a folder, a socket or a block device (before the block runs).
    """
    path = Path(path)
    if output_kind(path) == "stream":
        with _through(path) as written:
            yield written
        return
    target = Path(os.path.realpath(path)) if path.is_symlink() else path
    try:
        mode = stat.S_IMODE(os.stat(target).st_mode)
    except OSError:
        mode = None
    try:
        with atomic_path(target, temporary_sibling(target)) as temporary:
            yield temporary
            if mode is not None:
                os.chmod(temporary, mode)  # a 0600 file stays 0600
    except OSError as error:
        if error.errno is not None and str(error.filename) == str(target) and target != path:
            raise OSError(error.errno, error.strerror, str(path)) from error
        raise


@contextlib.contextmanager
def _through(path):
    """Yields a temporary file whose bytes are written to the stream `path` when the block
    succeeds."""
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


def write_bytes(path, data):
    """Writes the bytes `data` (a plot's PNG) to the output `path` (`output_path`)."""
    with output_path(path) as temporary:
        Path(temporary).write_bytes(data)


@contextlib.contextmanager
def output_stream(path, newline=None):
    """Yields a text stream (UTF-8; `newline` as `open`'s) to write the output `path` piece by
    piece (`translate`, chunk by chunk): what it holds becomes `path` when the block succeeds
    (`output_path`: a regular file is replaced then, whole or not at all)."""
    with output_path(path) as temporary:
        with open(temporary, "w", encoding="utf-8", newline=newline) as stream:
            yield stream


def write_text(path, text, newline=None):
    """Writes `text` (UTF-8) to the output `path` (`output_stream`); `newline` as `open`'s."""
    with output_stream(path, newline) as stream:
        stream.write(text)


def write_json(path, value, indent=None):
    """Writes `value` as JSON (one trailing newline) to the output `path` (`output_path`)."""
    write_text(path, json.dumps(value, indent=indent) + "\n")
