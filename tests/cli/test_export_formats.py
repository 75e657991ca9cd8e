"""`keras-nmt export --format ctranslate2`: the export opens like a run folder; the options of
one format are refused with the other."""

import pytest

from keras_nmt.workshop.cli import export, translate
from tests.export.helpers import SOURCES, make_run_folder

pytestmark = pytest.mark.tensorflow
pytest.importorskip("ctranslate2")


def test_a_ctranslate2_export_translates_as_its_run_folder(tmp_path, capsys):
    run = make_run_folder(tmp_path / "run", "transformer")
    assert export.main([str(run), "--format", "ctranslate2", "--output-dir",
                        str(tmp_path / "out")]) == 0
    exported = tmp_path / "out" / "run-ctranslate2"
    assert str(exported) in capsys.readouterr().out
    assert translate.main([str(run), *SOURCES]) == 0
    from_run = capsys.readouterr().out
    assert translate.main([str(exported), *SOURCES]) == 0
    assert capsys.readouterr().out == from_run
    # Again: refused without --force, replaced with it.
    again = [str(run), "--format", "ctranslate2", "--output-dir", str(tmp_path / "out")]
    assert export.main(again) == 1
    assert "add --force" in capsys.readouterr().err
    assert export.main([*again, "--force", "--quantization", "int8"]) == 0


@pytest.mark.parametrize("argv", [
    ["--format", "ctranslate2", "--version", "2"],
    ["--format", "ctranslate2", "--max-beam-size", "4"],
    ["--quantization", "int8"],
])
def test_options_of_the_other_format_are_refused(argv, capsys):
    with pytest.raises(SystemExit) as exit:
        export.main(["RUN", *argv])
    assert exit.value.code == 2
    assert "not apply to --format" in capsys.readouterr().err


def test_force_without_a_version_is_refused_for_a_saved_model(capsys):
    """A SavedModel export without --version takes a new version: --force would be ignored."""
    with pytest.raises(SystemExit) as exit:
        export.main(["RUN", "--force"])
    assert exit.value.code == 2
    assert "--force replaces an existing version: give it with --version" in (
        capsys.readouterr().err)


def test_a_recurrent_run_is_refused_in_one_line(tmp_path, capsys):
    run = make_run_folder(tmp_path / "run", "lstm")
    assert export.main([str(run), "--format", "ctranslate2", "--output-dir",
                        str(tmp_path / "out")]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: ") and "CTranslate2" in err and len(err.splitlines()) == 1


def test_a_convs2s_run_is_refused_before_tensorflow_loads(tmp_path, capsys, monkeypatch):
    run = tmp_path / "convs2s-run"
    run.mkdir()
    (run / "config.json").write_text('{"model": "convs2s"}')  # the model is all it reads

    def no_tensorflow(debug):
        raise AssertionError("TensorFlow started")

    monkeypatch.setattr(export, "start_tensorflow", no_tensorflow)
    assert export.main([str(run), "--format", "ctranslate2"]) == 1
    err = capsys.readouterr().err.strip()
    assert err == (f"error: {run}: a convs2s model cannot be exported to CTranslate2, which runs "
                   "Transformers only; export it as a SavedModel (--format saved_model)")
