"""Bad flags stop in the parser; bad files print one `error: ...` line, `--debug` a traceback."""

import gzip

import pytest

from keras_nmt.workshop.cli import benchmark as benchmark_app
from keras_nmt.workshop.cli import compare as compare_app
from keras_nmt.workshop.cli import evaluate as evaluate_app
from keras_nmt.workshop.cli import export as export_app
from keras_nmt.workshop.cli import spell as spell_app
from keras_nmt.workshop.cli import train as train_app
from keras_nmt.workshop.cli import translate as translate_app
from tests.error_output import one_error_line

BAD_FLAGS = [
    (train_app, ["--epochs", "0"]),
    (train_app, ["--epochs", "-1"]),
    (train_app, ["--batch-size", "0"]),
    (train_app, ["--units", "0"]),
    (train_app, ["--dropout", "1.5"]),
    (train_app, ["--max-length", "0"]),
    (train_app, ["--learning-rate", "0"]),
    (train_app, ["--max-bad-fraction", "2"]),
    (translate_app, ["m", "--batch-size", "0"]),
    (translate_app, ["m", "--beam-size", "0"]),
    (translate_app, ["m", "--n-best", "0"]),
    (translate_app, ["m", "--top-p", "0"]),
    (evaluate_app, ["m", "--batch-size", "0"]),
    (evaluate_app, ["m", "--beam-size", "-2"]),
    (export_app, ["run", "--version", "0"]),
    (spell_app, ["train", "--text", "t", "--epochs", "0"]),
    (compare_app, ["--epochs", "0"]),
    (benchmark_app, ["--batch-size", "0"]),
]


@pytest.mark.parametrize("app, argv", BAD_FLAGS,
                         ids=[f"{a.__name__.split('.')[-1]} {' '.join(v)}" for a, v in BAD_FLAGS])
def test_numeric_flags_are_checked_by_the_parser(app, argv, capsys):
    with pytest.raises(SystemExit) as exit_info:
        app.build_parser().parse_args(argv)
    assert exit_info.value.code == 2
    assert f"error: {argv[-2]} {argv[-1]}: must be " in capsys.readouterr().err


def test_epochs_zero_writes_no_folder(tmp_path):
    with pytest.raises(SystemExit):
        train_app.main(["--epochs", "0", "--output-dir", str(tmp_path / "run")])
    assert not (tmp_path / "run").exists()


def test_train_prints_one_line_naming_file_and_line_and_writes_nothing(tmp_path, capsys):
    bad = tmp_path / "bad.tsv"
    bad.write_text("Go.\tVe.\nno tab here\n", encoding="utf-8")
    run = tmp_path / "run"
    assert train_app.main(["--data", str(bad), "--output-dir", str(run)]) == 1
    assert f"{bad}, line 2: expected 2 or 3" in one_error_line(capsys)
    assert not run.exists()
    assert train_app.main(["--data", str(bad), "--output-dir", str(run), "--debug"]) == 1
    assert "Traceback" in capsys.readouterr().err


def test_patience_with_checkpoint_averaging_is_refused_before_any_folder(tmp_path, capsys):
    run = tmp_path / "run"
    argv = ["--patience", "2", "--average-checkpoints", "3", "--output-dir", str(run)]
    assert train_app.main(argv) == 1
    assert "--patience and --average-checkpoints do not combine" in one_error_line(capsys)
    assert not run.exists()


@pytest.mark.parametrize("kind", ["missing", "directory", "corrupt_gz"])
def test_train_and_evaluate_name_bad_data(kind, tmp_path, capsys):
    if kind == "missing":
        data, expected = tmp_path / "nope.tsv", "not an existing file"
    elif kind == "directory":
        data, expected = tmp_path, "is a directory"
    else:
        data, expected = tmp_path / "c.tsv.gz", "c.tsv.gz: corrupt or truncated .gz"
        data.write_bytes(gzip.compress(b"Go.\tVe.\n" * 5000)[:60])
    assert train_app.main(["--data", str(data), "--output-dir", str(tmp_path / "run")]) == 1
    assert expected in one_error_line(capsys)
    assert evaluate_app.main([str(tmp_path / "run"), "--data", str(data)]) == 1
    assert expected in one_error_line(capsys)
