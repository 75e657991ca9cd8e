"""Every app on a run folder, a SavedModel version folder and a SavedModel model folder.

The SavedModel paths run in fresh processes too: nothing there imports tensorflow_text by
accident (as this test process has), so they check that opening a SavedModel registers its ops.
"""

import contextlib
import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

from keras_nmt.workshop.cli import evaluate as evaluate_app
from keras_nmt.workshop.cli import spell as spell_app
from keras_nmt.workshop.cli import translate as translate_app
from tests.export.helpers import SOURCES

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def models(untrained_models):
    """`{"run": run folder, "version": saved/m/1, "model": saved/m}` of one untrained model."""
    return untrained_models


@pytest.fixture(scope="module")
def expected(models):
    """What `translate` prints for `SOURCES` from the run folder, computed once."""
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        assert translate_app.main([str(models["run"]), *SOURCES]) == 0
    return printed.getvalue().splitlines()


def fresh_process(*argv):
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TF_CPP_MIN_LOG_LEVEL": "3"}
    done = subprocess.run([sys.executable, *argv], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def test_translate_evaluate_and_spell_in_fresh_processes(models, expected):
    out = fresh_process("apps/translate.py", str(models["version"]), *SOURCES)
    assert out.splitlines() == expected
    out = fresh_process("apps/evaluate.py", str(models["model"]), "--test-size", "4")
    assert "| bleu |" in out
    out = fresh_process("apps/spell.py", "correct", str(models["version"]), SOURCES[0])
    assert out.splitlines() == expected[:1]


@pytest.mark.parametrize("which", ["run", "version", "model"])
def test_translate_and_evaluate_on_each_kind_of_folder(models, which, expected, capsys):
    assert translate_app.main([str(models[which]), *SOURCES]) == 0
    assert capsys.readouterr().out.splitlines() == expected
    scores = evaluate_app.main([str(models[which]), "--test-size", "4"])
    assert scores["sentences"] == 4
    assert spell_app.main(["correct", str(models[which]), SOURCES[0]]) == expected[:1]


@pytest.mark.parametrize("which", ["run", "version"])
@pytest.mark.usefixtures("each_model_opened_once_in_the_test")  # the two commands: one opening
def test_invalid_utf8_on_stdin_becomes_u_fffd_as_from_a_file(models, which, tmp_path,
                                                            monkeypatch, capsys):
    data = b"3rd of March 2021\n12/04/\xff\xfe1999\n"
    (tmp_path / "in.txt").write_bytes(data)
    assert translate_app.main([str(models[which]), "--input", str(tmp_path / "in.txt")]) == 0
    from_file = capsys.readouterr().out
    # What a terminal or pipe gives: a text layer that smuggles bad bytes as surrogates.
    stdin = io.TextIOWrapper(io.BytesIO(data), encoding="utf-8", errors="surrogateescape")
    monkeypatch.setattr("sys.stdin", stdin)
    assert translate_app.main([str(models[which])]) == 0
    assert capsys.readouterr().out == from_file and len(from_file.splitlines()) == 2
