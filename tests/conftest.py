"""Shared test set-up: quiet TensorFlow, the TensorFlow backend, the real corpora when present.

`make test` also runs the tests marked `jax` with `KERAS_BACKEND=jax` (`-m "jax and not slow"`):
every test of `JAX_DIRECTORIES`, and elsewhere the modules (`pytestmark`) and tests that carry
`@pytest.mark.jax`; tests marked `tensorflow` (TensorFlow graphs, `tf.function`) are skipped there.
"""

import os
from pathlib import Path

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("KERAS_BACKEND", "tensorflow")
# Under pytest-xdist, each worker (and the processes it starts) gets its share of the cores:
# TensorFlow's default of one thread per core in every worker oversubscribes them (on 2 cores,
# two learning tests side by side took 95 s with the default, 52 s with one thread each).
_WORKERS = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
if _WORKERS > 1:
    _THREADS = str(max(1, (os.cpu_count() or 1) // _WORKERS))
    os.environ.setdefault("TF_NUM_INTRAOP_THREADS", _THREADS)
    os.environ.setdefault("TF_NUM_INTEROP_THREADS", _THREADS)

import pytest  # noqa: E402

from keras_nmt.workshop.corpora.corpus import shared_data_dir  # noqa: E402

# Directories of tests that all run under JAX as well: layers and decoding are backend-neutral.
JAX_DIRECTORIES = ("layers", "decoding")
TESTS = Path(__file__).resolve().parent

SHARED_DATA = shared_data_dir()


def longest_first(items):
    """The tests, their modules ordered longest first as far as the tests tell: those with a test
    marked `slow` (learning, resuming, fresh processes), then by number of tests; each module's
    tests keep their order.

    pytest-xdist (`make test`) hands a worker a whole module at a time, in this order. Its own
    order (most tests first) put the one-test modules last: one worker could spend the last 80 s
    alone on a learning test while the other had nothing left to run.
    """
    modules = {}
    for item in items:
        modules.setdefault(item.path, []).append(item)

    def key(tests):
        return not any(test.get_closest_marker("slow") for test in tests), -len(tests)

    return [item for tests in sorted(modules.values(), key=key) for item in tests]


@pytest.hookimpl(tryfirst=True)  # before `-m` selects by marker
def pytest_collection_modifyitems(config, items):
    """Marks the tests of `JAX_DIRECTORIES` `jax`; skips the tests marked `tensorflow` under
    another Keras backend; orders the modules longest first (`longest_first`)."""
    del config
    for item in items:
        if Path(item.path).relative_to(TESTS).parts[0] in JAX_DIRECTORIES:
            item.add_marker(pytest.mark.jax)
    items[:] = longest_first(items)
    backend = os.environ["KERAS_BACKEND"]
    if backend == "tensorflow":
        return
    skip = pytest.mark.skip(reason=f"needs the TensorFlow backend, running {backend}")
    for item in items:
        if "tensorflow" in item.keywords:
            item.add_marker(skip)


@pytest.fixture
def shared_data() -> Path:
    """The directory of the real corpora (`../shared/data`); skips the test when it is absent."""
    if not (SHARED_DATA / "spa-eng.test.tsv").exists():
        pytest.skip(f"real corpora not found at {SHARED_DATA}")
    return SHARED_DATA


@pytest.fixture(autouse=True)
def no_debugging_left_behind():
    """A test that runs a command with `--debug` in this process turns the native notes on for
    the process (`quiet_start.debugging`); the next test on the same worker starts quiet again."""
    from keras_nmt.workshop import quiet_start

    before = quiet_start._DEBUG["on"]
    yield
    quiet_start._DEBUG["on"] = before


def pytest_terminal_summary(terminalreporter):
    """Prints the seconds each test folder took (set-up, call and tear-down of its tests, summed
    over the workers), so that every run of the suite says where its time goes."""
    seconds = {}
    for reports in terminalreporter.stats.values():
        for report in reports:
            if hasattr(report, "duration") and hasattr(report, "nodeid"):
                parts = report.nodeid.split("::")[0].split("/")
                folder = "/".join(parts[:2]) if len(parts) > 2 else parts[0]
                seconds[folder] = seconds.get(folder, 0.0) + report.duration
    if not seconds:
        return
    total = sum(seconds.values())
    terminalreporter.write_sep("=", "seconds per test folder (all workers)")
    for folder, spent in sorted(seconds.items(), key=lambda item: -item[1]):
        terminalreporter.write_line(f"{spent:8.1f} s {100 * spent / total:5.1f}%  {folder}")
    terminalreporter.write_line(f"{total:8.1f} s in all")
