"""Line N of an output is the translation of line N of the input: lines end at `\\n` only, so a
U+2028 inside a sentence does not split it (translate from a file and stdin, evaluate's
hypotheses, spell correct)."""

import io

import pytest

from keras_nmt.cli import evaluate as evaluate_app
from keras_nmt.cli import spell as spell_app
from keras_nmt.cli import translate as translate_app
from tests.export.helpers import make_run_directory

INPUT = b"3rd of March 2021\n4th of July\xe2\x80\xa81999\n25.12.2001\n"


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    return make_run_directory(tmp_path_factory.mktemp("aligned") / "run")


@pytest.fixture
def input_file(tmp_path):
    path = tmp_path / "in.txt"
    path.write_bytes(INPUT)
    return path


def test_translate_file_gives_one_line_per_input_line(run, input_file, tmp_path, capsys):
    output = tmp_path / "out.txt"
    translate_app.main([str(run), "--input", str(input_file), "--output", str(output)])
    assert len(output.read_bytes().split(b"\n")) == 3 + 1  # three lines, each ended by \n


def test_translate_stdin_gives_one_line_per_input_line(run, monkeypatch, capsys):
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(INPUT), encoding="utf-8"))
    translate_app.main([str(run)])
    out = capsys.readouterr().out
    assert out.count("\n") == 3, out


def test_evaluate_writes_one_hypothesis_per_source(run, tmp_path, capsys):
    data = tmp_path / "test.tsv"
    data.write_bytes(b"3rd of March 2021\t2021-03-03\n4th of July\xe2\x80\xa81999\t1999-07-04\n"
                     b"25.12.2001\t2001-12-25\n")
    hypotheses = tmp_path / "hypotheses.txt"
    scores = evaluate_app.main([str(run), "--data", str(data), "--output", str(hypotheses)])
    assert scores["sentences"] == 3
    assert hypotheses.read_bytes().count(b"\n") == 3


def test_spell_correct_gives_one_line_per_input_line(run, input_file, capsys):
    corrected = spell_app.main(["correct", str(run), "--input", str(input_file)])
    assert len(corrected) == 3
    assert capsys.readouterr().out.count("\n") == 3
