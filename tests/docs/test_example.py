"""examples/functional_vs_subclassed.py runs as written, with tiny sizes, and shows twin parity."""

import os
import re
import subprocess
import sys

import pytest

from tests.docs.markdown_blocks import REPOSITORY

EXAMPLE = REPOSITORY / "examples" / "functional_vs_subclassed.py"
# About 30 s of CPU; more wall time on a loaded machine.
pytestmark = [pytest.mark.tensorflow, pytest.mark.slow]


def test_the_example_runs_and_its_twins_agree(tmp_path):
    environment = {**os.environ, "EXAMPLE_OUTPUT_DIR": str(tmp_path / "plots"),
                   "TF_CPP_MIN_LOG_LEVEL": "2"}
    completed = subprocess.run(
        [sys.executable, str(EXAMPLE), "--tiny"], capture_output=True, text=True, timeout=600,
        env=environment, cwd=tmp_path,
    )
    assert completed.returncode == 0, completed.stderr[-3000:]
    out = completed.stdout
    parity = {direction: float(value) for direction, value in
              re.findall(r"^PARITY (\S+) max_abs_diff=(\S+)$", out, re.MULTILINE)}
    assert set(parity) == {"functional->subclassed", "subclassed->functional"}, out
    assert all(value < 1e-5 for value in parity.values()), parity
    exact = dict(re.findall(r"^EXACT (.+)=(\S+)$", out, re.MULTILINE))
    assert set(exact) == {"greedy", "beam 2"}, out
    assert all(0.0 <= float(value) <= 1.0 for value in exact.values()), exact
    assert "hand-written loop equals decode(): True" in out
    assert "final state = output after the last real token (step 3 of 5): True" in out
    trainable = re.search(r"trainable parameters: functional (\d+) subclassed (\d+)", out)
    assert trainable and trainable.group(1) == trainable.group(2), out
    before = float(re.search(r"subclassed before copying: (\S+)", out).group(1))
    assert before > 1e-3  # separately trained twins differ until the weights are copied
    assert (tmp_path / "plots" / "attention.png").stat().st_size > 1000
