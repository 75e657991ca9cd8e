"""examples/functional_vs_subclassed.py runs as written, with tiny sizes, and shows twin parity."""

import re
import runpy
import sys

import pytest

from tests.docs.markdown_blocks import REPOSITORY

EXAMPLE = REPOSITORY / "examples" / "functional_vs_subclassed.py"
# About 25 s of CPU; more wall time on a loaded machine.
pytestmark = [pytest.mark.tensorflow, pytest.mark.slow]


def test_the_example_runs_and_its_twins_agree(tmp_path, monkeypatch, capsys):
    # The script as `python examples/functional_vs_subclassed.py --tiny` runs it, in this process
    # (a fresh one would only add TensorFlow's start-up: the script sets no process-wide state).
    monkeypatch.setenv("EXAMPLE_OUTPUT_DIR", str(tmp_path / "plots"))
    monkeypatch.setattr(sys, "argv", [str(EXAMPLE), "--tiny"])
    monkeypatch.setattr(sys, "path", list(sys.path))  # the script puts the checkout first
    monkeypatch.chdir(tmp_path)
    runpy.run_path(str(EXAMPLE), run_name="__main__")
    out = capsys.readouterr().out
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
