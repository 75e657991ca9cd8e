"""The one way a command makes or replaces a folder of its own (an import, a SavedModel version,
a CTranslate2 export): built whole under a hidden partial name, moved in under a lock, and
never at the cost of a file we did not write.

- **Partials carry their owner.** A folder is built as ``.NAME.partial-OWNER-RANDOM`` beside
  it, where OWNER is this process's host (hashed), PID namespace (`/proc/self/ns/pid`), PID and
  start time (`/proc/self/stat`). A later writer deletes a partial only when its owner is
  provably dead: same host, same PID namespace, and that PID gone or started at another time.
  A partial of another container on a shared volume, or of another host, is kept ("no such PID
  here" is not "dead" there). The owner is in the name, so it exists from the partial's first
  instant. A partial without an owner (``.NAME.partial-RANDOM``, made by earlier versions, which
  took no lock, so no lock can speak for them) proves
  nothing about its writer; it is deleted once neither it nor anything in it has changed for
  `OWNERLESS_AGE` (7 days): no keras-nmt writer works that long without writing a file.
- **One writer per folder.** `FolderWriter` holds an OS lock (`fcntl.flock`) on
  ``.NAME.lock`` beside the folder from before the work to the end; a second writer of the same
  folder is refused at once, in one line. The kernel drops the lock however its holder ends.
  It is the one lock of a folder, whoever writes it: a training holds it on its run folder
  (`keras_nmt.workshop.run.run_lifecycle.lock_run_folder`), so an import into a folder being
  trained, or a training into a folder being imported, is refused.
- **A manifest of our names.** The finished folder holds ``.keras_nmt-manifest.json``: the
  names we wrote. Replacing the folder (`force`) moves out only those names (and the new ones)
  and keeps everything else (a user's `notes.txt`, `results/`); a folder without a manifest is
  replaced only when empty, or when the caller knows it as one of ours (`known`, for folders
  written before manifests). A folder that appeared while we worked (made by a writer that
  takes no lock) is never replaced unless `force` was asked: it is left as it is and the write
  refused.
- **Errors name the folder the user knows**, never the hidden partial.

Example:
    >>> with FolderWriter("runs/opus-es-en", force=True, flag="--output-dir") as writer:
    ...     (writer.partial / "config.json").write_text("{}")  # doctest: +SKIP
"""

import contextlib
import errno
import fcntl
import hashlib
import json
import os
import re
import secrets
import shutil
import socket
import time
from pathlib import Path

MANIFEST_FILE = ".keras_nmt-manifest.json"
PARTIAL = ".partial-"
# An ownerless partial untouched this long (seconds) is a killed writer's (`owner_is_dead`).
OWNERLESS_AGE = 7 * 24 * 3600
# The ownerless partials' tails keras-nmt wrote: `tempfile.mkdtemp`'s 8 characters, after a PID
# in earlier exports, and an earlier unlocked export's 16 hex digits. Nothing else is taken for
# ours.
_OWNERLESS = re.compile(r"(\d+-)?[a-z0-9_]{8}|[0-9a-f]{16}")


class FolderError(ValueError):
    """A folder that cannot be made or replaced (another writer, files not ours)."""


def _host():
    return hashlib.sha256(socket.gethostname().encode()).hexdigest()[:8]


def _namespace(pid="self"):
    try:
        return str(os.stat(f"/proc/{pid}/ns/pid").st_ino)
    except OSError:
        return "0"


def _start_time(pid="self"):
    """The process's start time in clock ticks since boot (`/proc/PID/stat` field 22), or
    None when there is no such process here."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return text.rsplit(")", 1)[1].split()[19]


def owner():
    """This process as a partial's name records it: ``HOST-NAMESPACE-PID-START``."""
    return f"{_host()}-{_namespace()}-{os.getpid()}-{_start_time() or 0}"


def partial_name(name):
    """A new hidden partial name for a folder called `name`, carrying this process's owner."""
    return f".{name}{PARTIAL}{owner()}-{secrets.token_hex(4)}"


def _last_change(folder):
    """The newest modification time (seconds) of `folder` and everything in it."""
    newest = os.lstat(folder).st_mtime
    for root, folders, files in os.walk(folder):
        for name in (*folders, *files):
            with contextlib.suppress(OSError):
                newest = max(newest, os.lstat(os.path.join(root, name)).st_mtime)
    return newest


def owner_is_dead(partial, now=None):
    """Whether the process that made the partial folder `partial` no longer runs: for a partial
    with its owner in the name, provably (made on this host, in this PID namespace, and its PID
    is gone or belongs to a later process; another host or container is no proof); for one
    without (earlier versions', the textbook's), when neither it nor anything in it changed for
    `OWNERLESS_AGE` (`now`: the time to compare with, default the clock's).

    Such a partial's writer took no lock, so no lock can tell whether it runs: its files'
    times are the only witness. A writer that runs has written within minutes."""
    tail = Path(partial).name.rsplit(PARTIAL, 1)[-1]
    fields = tail.split("-")
    if len(fields) != 5 or not all(field.isdigit() for field in fields[1:4]):
        if not _OWNERLESS.fullmatch(tail):
            return False  # not a name keras-nmt writes
        try:
            return (time.time() if now is None else now) - _last_change(partial) > OWNERLESS_AGE
        except OSError:
            return False
    host, namespace, pid, start, _ = fields
    if host != _host() or namespace != _namespace() or namespace == "0":
        return False
    running = _start_time(int(pid))
    return running is None or (start != "0" and running != start)


def remove_dead_partials(parent, name=None):
    """Deletes the partial folders in `parent` (of a folder called `name`, or of any) whose
    owner is dead (`owner_is_dead`): what a killed writer left."""
    pattern = f".{name}{PARTIAL}*" if name else f".*{PARTIAL}*"
    for path in Path(parent).glob(pattern):
        if path.is_dir() and owner_is_dead(path):
            shutil.rmtree(path, ignore_errors=True)


def manifest(folder):
    """The names a keras_nmt writer recorded in `folder`, or None (no manifest)."""
    try:
        names = json.loads((Path(folder) / MANIFEST_FILE).read_text())["names"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return [name for name in names if isinstance(name, str) and "/" not in name
            and name not in ("", ".", "..")]


@contextlib.contextmanager
def folder_lock(folder, flag):
    """Holds an exclusive OS lock on ``.NAME.lock`` beside `folder` for the block; a second
    holder is refused with `FolderError` naming the folder, the holder and `flag`.

    The lock file sits beside the folder's real path (links resolved), so every name of one
    folder takes the same lock; the parent folder must exist."""
    folder = Path(folder)
    real = folder.resolve()
    lock = real.with_name(f".{real.name}.lock")
    while True:
        descriptor = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as error:
            os.close(descriptor)
            if error.errno not in (errno.EAGAIN, errno.EACCES):
                raise
            try:
                holder = lock.read_text().strip() or "unknown"
            except OSError:
                holder = "unknown"
            raise FolderError(f"{folder} is being written by another keras-nmt (PID {holder}); "
                              f"wait for it to end, or choose another {flag}") from None
        try:  # a holder that finished deleted the lock file: lock the new one
            if os.stat(lock).st_ino == os.fstat(descriptor).st_ino:
                break
        except FileNotFoundError:
            pass
        os.close(descriptor)
    try:
        os.ftruncate(descriptor, 0)
        os.write(descriptor, f"{os.getpid()}\n".encode())
        yield
    finally:
        lock.unlink(missing_ok=True)  # still ours: deleted before the lock is released
        os.close(descriptor)


def naming(error, partial, final):
    """`error`, or when its message names the hidden folder `partial` (TensorFlow's
    `.1.partial-.../saved_model.pb.tmp...`), an `OSError` naming `final` instead: the folder
    the user knows, with the same reason."""
    text = str(error)
    if str(partial) not in text:
        return error
    if isinstance(error, OSError) and error.errno is not None:
        return OSError(error.errno, error.strerror, str(final))
    code = errno.ENOSPC if "No space left" in text else errno.EIO
    reason = text.replace(str(partial), str(final)).strip().splitlines()[-1]
    return OSError(code, reason, str(final))


class FolderWriter:
    """Makes or replaces the folder `final` (see the module's docstring).

    Use as a context manager: on entry the lock is taken (a second writer refused), the target
    checked (an existing folder needs `force` and must be ours) and a partial folder made; the
    block writes into `writer.partial`; on success its names are moved into `final`.

    Args:
        final: the folder to make or replace.
        force: replace our names in an existing folder (others are kept).
        flag: the flag that named `final`, for messages (``--output-dir``).
        known: names that mark a folder of ours written before manifests (e.g. a run's
            `config.json`); such a folder's `known` names count as ours.
        refuse: a function of the existing folder returning why it is refused (or None),
            the message's words after the folder's name: "is not a CTranslate2 export: ...".
    """

    def __init__(self, final, force=False, flag="--output-dir", known=(), refuse=None):
        self.final, self.force, self.flag = Path(final), force, flag
        self.known, self.refuse = tuple(known), refuse
        self.partial = None
        self._stack = None

    def _ours(self):
        """Our names in the existing `final`, or None when it is not ours to replace."""
        listed = manifest(self.final)
        if listed is not None:
            return listed
        present = {path.name for path in self.final.iterdir()}
        if not present:
            return []
        if self.known and self.known[0] in present:
            return [name for name in self.known if name in present]
        return None

    def check(self):
        """Refuses an existing `final` we may not replace (`FolderError` / `FileExistsError`)."""
        final = self.final
        if not (final.exists() or final.is_symlink()):
            return
        if not final.is_dir():
            raise FolderError(f"{final} is a file, not a folder; choose another {self.flag}")
        if not self.force:
            raise FileExistsError(f"{final} already exists (use --force to replace it)")
        reason = self.refuse(final) if self.refuse else None
        if reason is None and self._ours() is None:
            reason = ("holds files keras-nmt did not write: --force replaces only what "
                      "keras-nmt wrote, never other files")
        if reason:
            raise FolderError(f"{final} {reason}; choose another {self.flag}")

    def __enter__(self):
        self.final.parent.mkdir(parents=True, exist_ok=True)
        with contextlib.ExitStack() as stack:
            stack.enter_context(folder_lock(self.final, self.flag))
            self.check()
            remove_dead_partials(self.final.parent)  # any killed writer's, here
            self.partial = self.final.with_name(partial_name(self.final.name))
            self.partial.mkdir()
            self._stack = stack.pop_all()
        return self

    def __exit__(self, kind, error, traceback):
        try:
            if kind is None:
                self._commit()
        except BaseException as raised:
            shutil.rmtree(self.partial, ignore_errors=True)
            self._stack.__exit__(type(raised), raised, raised.__traceback__)
            raise
        if kind is not None:
            shutil.rmtree(self.partial, ignore_errors=True)
            self._stack.close()
            if isinstance(error, Exception):
                # The hidden partial means nothing to the user: name the folder they gave.
                renamed = naming(error, self.partial, self.final)
                if renamed is not error:
                    raise renamed from error
            return False
        self._stack.close()
        return False

    def _commit(self):
        names = sorted(path.name for path in self.partial.iterdir() if path.name != MANIFEST_FILE)
        (self.partial / MANIFEST_FILE).write_text(json.dumps({"names": names}, indent=1) + "\n")
        try:
            os.rename(self.partial, self.final)  # a new (or empty) folder: atomic
            return
        except OSError as error:
            if error.errno not in (errno.EEXIST, errno.ENOTEMPTY, errno.ENOTDIR):
                raise
        # `final` exists: it was there with `force`, or appeared meanwhile, made by a writer
        # that takes no lock (then, without `force`, it must be empty).
        if not self.force and self.final.is_dir() and any(self.final.iterdir()):
            if self._ours() is None:
                self.force = True
                self.check()  # names the files not ours
            raise FileExistsError(f"{self.final} was written by another writer meanwhile; "
                                  f"choose another {self.flag}, or add --force to replace it")
        self.force = True
        self.check()
        ours = set(self._ours() or ()) | set(names)
        trash = self.final.with_name(partial_name(self.final.name))
        trash.mkdir()
        moved = []
        try:
            for name in sorted(ours):
                if (self.final / name).exists() or (self.final / name).is_symlink():
                    os.rename(self.final / name, trash / name)
                    moved.append(name)
            for name in [*names, MANIFEST_FILE]:
                os.rename(self.partial / name, self.final / name)
        except BaseException:
            for name in moved:  # the old names back where the new ones did not arrive
                if not (self.final / name).exists():
                    os.rename(trash / name, self.final / name)
            raise
        shutil.rmtree(trash, ignore_errors=True)
        self.partial.rmdir()
