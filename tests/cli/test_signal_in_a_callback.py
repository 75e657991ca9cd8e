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
from keras_nmt import interruption
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
