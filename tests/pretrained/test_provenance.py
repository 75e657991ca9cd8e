"""An imported model knows its languages, its tokenizers and whom to credit, and gets the same
checks as a trained run: a test file is fed in its direction whatever the order of its columns.

Issue 68: `keras-nmt evaluate runs/opus-es-en --data spa-eng.test.tsv` (English first) scored
the English column, exit 0, and `--source-column 1` was refused as "trained with
--source-column 0" (an import was trained on no column).
"""

import json
import shutil

import pytest

from keras_nmt.workshop.cli import evaluate as evaluate_app
from keras_nmt.workshop.cli import train as train_app
from keras_nmt.workshop.cli import translate as translate_app
from keras_nmt.workshop.run.provenance import tokenizer_fingerprints
from keras_nmt.workshop.run.train_config import TrainConfig
from keras_nmt.workshop.serve.served_model import load_served_models
from keras_nmt.workshop.translators.open_translator import model_data
from tests.error_output import one_error_line

SENTENCES = 40


@pytest.fixture(scope="module")
def test_files(opened, reference, tmp_path_factory):
    """A Spanish-first and an English-first file of the fixture's sentences, each with the
    imported model's own greedy translation as its reference: scored in the model's direction,
    BLEU is 100; fed the English side, it is near 0."""
    folder = tmp_path_factory.mktemp("tests")
    sources = reference.sentences[:SENTENCES]
    translations = opened.translate_texts(sources)
    pairs = [(s, t) for s, t in zip(sources, translations, strict=True) if t.strip()]
    spanish_first, english_first = folder / "es-en.tsv", folder / "en-es.tsv"
    spanish_first.write_text("".join(f"{s}\t{t}\n" for s, t in pairs), encoding="utf-8")
    english_first.write_text("".join(f"{t}\t{s}\n" for s, t in pairs), encoding="utf-8")
    return spanish_first, english_first


def test_an_import_records_its_attribution_and_tokenizers(imported):
    run = imported().run_dir
    recorded = json.loads((run / "provenance.json").read_text())
    assert recorded["tokenizers"] == tokenizer_fingerprints(run / "tokenizers")
    attribution = recorded["attribution"]
    assert (attribution["name"], attribution["licence"]) == ("hf", "CC-BY 4.0")
    assert attribution["source"].endswith("fixtures/hf") and "OPUS-MT" in attribution["credit"]
    assert json.loads((run / "imported.json").read_text()) == attribution
    languages = model_data(run).languages
    assert (languages["source"]["code"], languages["target"]["code"]) == ("spa", "eng")


@pytest.mark.parametrize("order", ["spanish first", "english first"])
def test_an_import_is_scored_in_its_direction_whatever_the_column_order(imported, test_files,
                                                                        order, tmp_path,
                                                                        capsys):
    path = test_files[order == "english first"]
    scores = evaluate_app.main([str(imported().run_dir), "--data", str(path), "--output",
                                str(tmp_path / "out.txt")])
    assert scores["bleu"] == pytest.approx(100.0)
    column = 1 if order == "english first" else 0
    assert f"{path}: column {column} fed the model (its source, spa)" in capsys.readouterr().err


def test_source_column_names_the_files_column_alone(imported, test_files, tmp_path, capsys):
    """`--source-column 1` on the English-first file is right, and accepted; on the
    Spanish-first file it names the English column, and is refused in one line naming it."""
    spanish_first, english_first = test_files
    run = imported().run_dir
    scores = evaluate_app.main([str(run), "--data", str(english_first), "--source-column", "1",
                                "--output", str(tmp_path / "out.txt")])
    assert scores["bleu"] == pytest.approx(100.0)
    assert "trained with --source-column" not in capsys.readouterr().err
    assert evaluate_app.main([str(run), "--data", str(spanish_first), "--source-column",
                              "1"]) == 1
    line = one_error_line(capsys)
    assert str(spanish_first) in line and "column 0 reads like the model's source language" in line


def test_fine_tuning_data_is_fed_in_the_models_direction(imported, test_files, tmp_path, capsys):
    """`train --init-from` an es->en model on an English-first file trained it backwards."""
    _, english_first = test_files
    start = ["--init-from", str(imported().run_dir), "--data", str(english_first),
             "--output-dir", str(tmp_path / "tuned")]
    config = TrainConfig(**{
        k: v for k, v in vars(train_app.parse(start)).items()
        if k not in ("export", "fresh", "debug", "configuration")})
    oriented = train_app.oriented_to_start(config, stated=False)
    assert (oriented.source_column, oriented.target_column) == (1, None)
    assert f"{english_first}: column 1 fed the model" in capsys.readouterr().out
    with pytest.raises(ValueError, match="column 1 reads like the model's source language"):
        train_app.oriented_to_start(config, stated=True)  # `--source-column 0`, said


def test_serve_shows_an_imports_provenance(imported):
    [served] = load_served_models([str(imported().run_dir)])
    described = served.describe()
    assert (described["source"], described["target"]) == ("spa", "eng")
    assert described["attribution"]["licence"] == "CC-BY 4.0"
    assert described["languages"]["target"]["code"] == "eng"
    assert described["tokenizers"] == tokenizer_fingerprints(imported().run_dir / "tokenizers")


def test_a_model_with_other_tokenizers_is_refused(imported, tmp_path, capsys):
    """Each tokenizer folder is whole (its own checksums pass), but they are swapped: the ids
    would mean other pieces. Nothing tied a model to its tokenizers (issue 69)."""
    run = shutil.copytree(imported().run_dir, tmp_path / "run")
    tokenizers = run / "tokenizers"
    (tokenizers / "source").rename(tokenizers / "swap")
    (tokenizers / "target").rename(tokenizers / "source")
    (tokenizers / "swap").rename(tokenizers / "target")
    assert translate_app.main([str(run), "Hola."]) == 1
    line = one_error_line(capsys)
    # The file that differs is named where the record lists each file (`tokenizer_files`).
    assert line.startswith(f"error: {tokenizers / 'source'}")
    assert "source tokenizer this model was trained with" in line
    assert str(run / "provenance.json") in line
