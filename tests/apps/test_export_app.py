import pytest

from keras_nmt.workshop.cli import export as export_app


def test_help_explains_every_flag(capsys):
    with pytest.raises(SystemExit):
        export_app.main(["--help"])
    out = capsys.readouterr().out
    for flag in ("RUN_FOLDER", "--output-dir", "--name", "--version", "--seed"):
        assert flag in out


def test_missing_run_folder_is_a_clear_error(tmp_path, capsys):
    assert export_app.main([str(tmp_path / "nope"), "--output-dir", str(tmp_path)]) == 1
    assert "not a finished run folder" in capsys.readouterr().err
