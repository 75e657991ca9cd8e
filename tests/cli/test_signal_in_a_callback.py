"""A signal whose exception lands where Python can only report it (a garbage-collector
callback such as JAX's, a `__del__`) still interrupts the command, and prints nothing there.

Found by the real-signal trials: Ctrl-C during a CTranslate2 export landed in JAX's gc callback,
printed "Exception ignored in: <function _xla_gc_callback>" and a traceback, and the export
went on."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

PROGRAM = """
import os, signal, time
from keras_nmt.workshop import interruption
interruption.install()

class Slow:
    def __del__(self):  # the handler runs in here: its exception can only be reported
        os.kill(os.getpid(), signal.SIG{name})
        for _ in range(10**6):
            pass

try:
    Slow()
    time.sleep(5)
    print("went on")
except KeyboardInterrupt as error:
    print(type(error).__name__)
"""


def test_a_signal_in_a_del_interrupts_and_prints_no_ignored_exception():
    for name, expected in (("INT", "KeyboardInterrupt"), ("TERM", "Terminated")):
        result = subprocess.run([sys.executable, "-c", PROGRAM.format(name=name)], cwd=ROOT,
                                capture_output=True, text=True, timeout=60,
                                env={"PYTHONPATH": str(ROOT)})
        assert result.stdout.strip() == expected, result.stdout + result.stderr
        assert result.stderr == ""


EXIT = """
import atexit, os, signal, sys, time
from keras_nmt.workshop import interruption
interruption.install()

def last_words():  # the shutdown of a command that succeeded, interrupted
    os.kill(os.getpid(), signal.SIGINT)
    time.sleep(0.2)
    print("atexit ran")

atexit.register(last_words)
print("done")
interruption.exit_now(0)
"""


def test_a_signal_after_a_command_succeeded_does_not_change_its_outcome():
    """The interpreter's shutdown after a TensorFlow command took seconds, and a Ctrl-C there
    killed a command that had printed its result (status -2 instead of 0)."""
    result = subprocess.run([sys.executable, "-c", EXIT], cwd=ROOT, capture_output=True,
                            text=True, timeout=60, env={"PYTHONPATH": str(ROOT)})
    assert (result.returncode, result.stdout.split(), result.stderr) == (
        0, ["done", "atexit", "ran"], "")
