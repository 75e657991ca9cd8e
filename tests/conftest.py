"""Shared test set-up: quiet TensorFlow, the TensorFlow backend, the real corpora when present.

`make test` also runs the layers, models, decoding and loss tests with `KERAS_BACKEND=jax`;
tests marked `tensorflow` (TensorFlow graphs, `tf.function`) are skipped there.
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

DEFAULT_SHARED_DATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "data"
SHARED_DATA = Path(os.environ.get("KERAS_NMT_SHARED_DATA", DEFAULT_SHARED_DATA)).resolve()


def pytest_collection_modifyitems(config, items):
    """Skips the tests marked `tensorflow` under another Keras backend."""
    del config
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
