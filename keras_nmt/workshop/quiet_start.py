"""Quiet by default: TensorFlow's and SentencePiece's C++ notes kept off the terminal.

TensorFlow's native libraries print start-up notes (oneDNN, CUDA drivers on a CPU machine,
`failed call to cuInit`) straight to file descriptor 2 before its logging is configured, so
`TF_CPP_MIN_LOG_LEVEL` cannot silence them; SentencePiece, compiled into tensorflow-text, logs
`normalizer.cc ... LOG(INFO)` lines with a logger of its own when a model's tokenizer op is
made. A newcomer reads them as errors. `start_tensorflow` imports TensorFlow with them
discarded and limits its native log to fatal messages (errors reach Python as exceptions;
TensorFlow also logs notes such as oneDNN's "supports DT_INT64 only on..." and
`cache_dataset_ops.cc`'s at warning and error level); `quiet_native_output` discards the
native lines of one block (Python's own output to `sys.stderr` is kept: it is written after
the block). The libraries' Python warnings about their own use are hidden too: Keras' (a
softmax over an axis of size 1, when the explorer draws a one-token sentence's attention) and
TensorFlow's logger (`tf.function retracing`, when the explorer steps through sentences of
new lengths). Every command (`--debug`), and the Python API (`KERAS_NMT_DEBUG=1`), keeps
them all.

This module imports nothing of the project's but `interruption`.

Example:
    >>> start_tensorflow()                    # doctest: +SKIP
    >>> with quiet_native_output():           # doctest: +SKIP
    ...     tf.saved_model.load(path)
"""

import contextlib
import logging
import os
import sys
import warnings

from keras_nmt.workshop import interruption

_UNUSED_AT_START = ("jax", "matplotlib")
# `--debug` (or `KERAS_NMT_DEBUG=1`): the native notes are shown.
_DEBUG = {"on": os.environ.get("KERAS_NMT_DEBUG", "") not in ("", "0")}


def debugging():
    """Whether the native notes are shown (`--debug`, `KERAS_NMT_DEBUG=1`)."""
    return _DEBUG["on"]


@contextlib.contextmanager
def quiet_native_output():
    """Discards what native code writes to file descriptor 2 inside the block (nothing is
    discarded while debugging). Python's `sys.stderr` is flushed before and after."""
    if debugging():
        yield
        return
    sys.stderr.flush()
    saved = os.dup(2)
    try:
        with open(os.devnull, "w") as devnull:
            os.dup2(devnull.fileno(), 2)
            yield
    finally:
        sys.stderr.flush()
        os.dup2(saved, 2)
        os.close(saved)


def start_tensorflow(debug=False):
    """Imports TensorFlow (with tensorflow-text and Keras) quietly (see the module); `debug`
    keeps its notes, and TensorFlow's native log at every level."""
    _DEBUG["on"] = _DEBUG["on"] or debug
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "0" if debugging() else "3")
    os.environ.setdefault("KERAS_BACKEND", "tensorflow")
    if debugging() or "tensorflow" in sys.modules:
        interruption.check()
        return
    # Optional imports of TensorFlow's and Keras's own start-up that no command uses (TF Lite's
    # JAX converter, Keras's image-gallery plots): kept out while they load, they cost 1.5-2 s
    # of a 7 s start on 2 cores. They import normally afterwards (`keras_nmt.workshop.plots`).
    skipped = [name for name in _UNUSED_AT_START if name not in sys.modules]
    if os.environ["KERAS_BACKEND"] != "tensorflow" and "jax" in skipped:
        skipped.remove("jax")  # Keras' own backend
    sys.modules.update(dict.fromkeys(skipped))  # None: `import` raises ImportError
    try:
        with quiet_native_output():
            # Imported here, not at the top: parsing and --help must not load TensorFlow.
            import tensorflow as tf  # noqa: PLC0415
            import tensorflow_text  # noqa: F401, PLC0415  (registers the tokenizer ops)

            tf.config.list_physical_devices()
    finally:
        for name in skipped:
            if sys.modules.get(name, 0) is None:
                del sys.modules[name]
    warnings.filterwarnings("ignore", category=UserWarning, module=r"keras(\.|$)")
    logging.getLogger("tensorflow").setLevel(logging.ERROR)
    interruption.check()  # a signal that TensorFlow's import swallowed ends the command here
