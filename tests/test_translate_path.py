"""The path of a sentence from `keras_nmt.open_translator(run)([...])` to the model's
`decode_step` is short, and docs/architecture.md shows it as it is
(`docs/architecture/translate_path.py` measures it)."""

import re
import runpy
from pathlib import Path

import pytest

from tests.export.helpers import make_run_folder

ROOT = Path(__file__).resolve().parents[1]
# The goal: at most 6 frames (`decode_step` included) in at most 4 modules (the model's too).
MOST_FRAMES, MOST_MODULES = 6, 4

pytestmark = pytest.mark.tensorflow


def test_the_translate_path_is_short_and_documented_as_measured(tmp_path, capsys):
    measure = runpy.run_path(str(ROOT / "docs" / "architecture" / "translate_path.py"))
    run = make_run_folder(tmp_path / "run", "lstm", "functional")
    capsys.readouterr()
    measure["main"](str(run))  # greedy, then beam search
    printed = capsys.readouterr().out
    counts = re.findall(r"^(greedy|beam search.*): (\d+) frames in (\d+) modules$", printed,
                        re.MULTILINE)
    assert [name for name, _, _ in counts] == ["greedy", "beam search, beam_size=2"]
    for name, frames, modules in counts:
        assert int(frames) <= MOST_FRAMES and int(modules) <= MOST_MODULES, name
    documented = (ROOT / "docs" / "architecture.md").read_text()
    assert printed in documented
