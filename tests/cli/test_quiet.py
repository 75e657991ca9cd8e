"""Quiet by default: no C++ log line of TensorFlow or SentencePiece, no library warning that is
not the user's business, on any path (a command's flag errors, `train --init-from`, the Python
API, a subword SavedModel's load, the server); `--debug` / `KERAS_NMT_DEBUG=1` show them.

Issue 68: `train --init-from` printed `failed call to cuInit` (it loaded TensorFlow to read the
starting run before the quiet start); a subword SavedModel printed SentencePiece's
`normalizer.cc LOG(INFO)` twice; the server printed Keras' softmax-over-axis and TensorFlow's
`tf.function retracing` warnings while the explorer answered; the README's Python section
printed TensorFlow's start-up notes and `cache_dataset_ops.cc` lines.
"""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from keras_nmt.workshop.translators import saved_translator
from tests.export.helpers import make_run_folder

ROOT = Path(__file__).resolve().parents[2]
# A line of TensorFlow's or absl's C++ log ("I0000 00:00:... port.cc:153] ..."), or of
# SentencePiece's own ("normalizer.cc(51) LOG(INFO) ...").
NATIVE_LINE = re.compile(r"^([IWEF]\d{4} |WARNING: All log messages before absl)|LOG\(INFO\)|"
                         r"cuInit|cache_dataset_ops", re.MULTILINE)
pytestmark = pytest.mark.tensorflow


def run_python(code, *args, debug=False):
    """`python -c code args` as a user runs it (no TF_CPP_MIN_LOG_LEVEL of the tests)."""
    env = {k: v for k, v in os.environ.items() if k not in ("TF_CPP_MIN_LOG_LEVEL",
                                                           "KERAS_NMT_DEBUG")}
    if debug:
        env["KERAS_NMT_DEBUG"] = "1"
    return subprocess.run([sys.executable, "-c", code, *map(str, args)], cwd=ROOT,
                          capture_output=True, text=True, timeout=600, env=env)


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    return make_run_folder(tmp_path_factory.mktemp("quiet") / "run")


PYTHON_API = """
import sys, keras_nmt
translator = keras_nmt.open_translator(sys.argv[1])
print(translator(["3rd of March 2021"]))
"""


def test_the_python_api_prints_no_native_log_line(run):
    quiet = run_python(PYTHON_API, run)
    assert quiet.returncode == 0, quiet.stderr
    assert not NATIVE_LINE.search(quiet.stderr), quiet.stderr
    shown = run_python(PYTHON_API, run, debug=True)  # the check can see them
    assert shown.returncode == 0 and NATIVE_LINE.search(shown.stderr), shown.stderr


def test_train_init_from_prints_no_native_log_line(run, tmp_path):
    """It read the starting run (loading TensorFlow) before the quiet start: `failed call to
    cuInit`. A contradicting flag ends it after that read: one usage and one error line."""
    done = run_python("import sys; from keras_nmt.workshop.cli import main; "
                      "sys.exit(main(sys.argv[1:]))",
                      "train", "--init-from", run, "--units", "99", "--output-dir",
                      tmp_path / "tuned")
    assert done.returncode == 2
    assert not NATIVE_LINE.search(done.stderr), done.stderr
    assert "error: --units 99 contradicts" in done.stderr.strip().splitlines()[-1]


LIBRARY_WARNINGS = """
import warnings, numpy as np
from keras_nmt.workshop.quiet_start import start_tensorflow
start_tensorflow()
import keras, tensorflow as tf
keras.ops.softmax(np.ones((1, 1), "float32"), axis=-1)  # Keras: "softmax over axis -1"
double = tf.function(lambda x: 2 * x)
for length in range(1, 8):  # TensorFlow: "triggered tf.function retracing"
    double(tf.ones([length]))
print("done")
"""


def test_library_warnings_are_hidden_unless_debugging():
    quiet = run_python(LIBRARY_WARNINGS)
    assert quiet.returncode == 0, quiet.stderr
    assert "softmax over axis" not in quiet.stderr and "retracing" not in quiet.stderr, quiet.stderr
    shown = run_python(LIBRARY_WARNINGS, debug=True)
    assert "softmax over axis" in shown.stderr and "retracing" in shown.stderr, shown.stderr


def test_a_saved_models_load_writes_no_native_line(monkeypatch, capfd, tmp_path):
    """SentencePiece logs `normalizer.cc(51) LOG(INFO)` to file descriptor 2 when a subword
    SavedModel's tokenizer op is made, at load: the load is quiet (Python's stderr is kept)."""
    def load(path):
        os.write(2, b"normalizer.cc(51) LOG(INFO) precompiled_charsmap is empty.\n")
        raise RuntimeError("stop here")

    monkeypatch.setattr(saved_translator.tf.saved_model, "load", load)
    with pytest.raises(RuntimeError, match="stop here"):
        saved_translator.SavedTranslator(tmp_path)
    assert "LOG(INFO)" not in capfd.readouterr().err
