"""Test artefacts built once per session, shared by the pytest-xdist workers."""

import fcntl
import os
import shutil


def built_once(tmp_path_factory, name, build):
    """The folder `name` that `build(folder)` fills, built once for the whole test session.

    Under pytest-xdist each worker has a session of its own: the folder lies in the workers'
    common temporary directory and a file lock lets the first worker build it while the other
    waits (pytest-xdist's "Making session-scoped fixtures execute only once"). Alone (`-n 0`),
    it is the session's own. A folder left half-built (its builder killed) is built again.
    Tests read it; one that changes it copies it first.
    """
    root = tmp_path_factory.getbasetemp()
    if "PYTEST_XDIST_WORKER" in os.environ:
        root = root.parent
    folder, done = root / name, root / f"{name}.built"
    with open(root / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if not done.exists():
            shutil.rmtree(folder, ignore_errors=True)
            build(folder)
            done.touch()
    return folder
