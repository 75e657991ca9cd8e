"""apps/evaluate.py: scores that match the metrics on the same hypotheses, files written."""

import json
import unicodedata

import numpy as np
import pytest

from keras_nmt.metrics import corpus_bleu, corpus_cer, exact_match
from keras_nmt.workshop.cli import evaluate
from keras_nmt.workshop.lines import read_lines
from keras_nmt.workshop.run.run_folder import RunFolder
from tests.export.helpers import make_run_folder


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    return make_run_folder(tmp_path_factory.mktemp("evaluate") / "run")


def test_scores_a_test_file_and_writes_hypotheses_and_json(run_dir, tmp_path, capsys):
    test_file = tmp_path / "test.tsv"
    # source<TAB>target, the run's columns and languages (the model's tokenizers know them:
    # a side they do not is refused); the repeated source has two references.
    test_file.write_text("3 May 21\t2021-05-03\n12/4/99\t1999-04-12\n3 May 21\t2021-03-05\n",
                         encoding="utf-8")
    report = tmp_path / "report.json"
    hypotheses_file = tmp_path / "hypotheses.txt"
    scores = evaluate.main([
        str(run_dir), "--data", str(test_file), "--json", str(report),
        "--output", str(hypotheses_file), "--batch-size", "1",
    ])
    hypotheses = read_lines(hypotheses_file)
    assert len(hypotheses) == 2  # "cab" twice -> one sentence with two references
    references = [["2021-05-03", "2021-03-05"], ["1999-04-12"]]
    # Scored as NFKC, as `score_all` says (this untrained model emits the UNK mark U+2047, "??").
    hypotheses = [unicodedata.normalize("NFKC", text) for text in hypotheses]
    assert scores["sentences"] == 2
    assert scores["bleu"] == pytest.approx(corpus_bleu(hypotheses, references).score)
    assert scores["cer"] == pytest.approx(corpus_cer(hypotheses, references).rate)
    assert scores["exact_match"] == pytest.approx(exact_match(hypotheses, references))
    # The first call (tracing) is timed apart; the speed counts the steady pass only.
    assert scores["warmup_seconds"] > 0
    assert scores["sentences_per_second"] == pytest.approx(scores["sentences"] / scores["seconds"])
    assert json.loads(report.read_text())["bleu_signature"].startswith("nrefs:")
    captured = capsys.readouterr()
    assert "| bleu |" in captured.out and "signature" in captured.out
    # One speed figure, the table's (without the warm-up), not a second one on stderr.
    assert "sentences/s" not in captured.err and "| sentences_per_second |" in captured.out


def test_built_in_test_split_with_beam_search(run_dir):
    scores = evaluate.main([str(run_dir), "--data", "dates", "--test-size", "8",
                            "--beam-size", "2"])
    assert scores["sentences"] == 8 and scores["beam_size"] == 2
    assert 0.0 <= scores["exact_match"] <= 1.0
    assert (run_dir / "hypotheses.txt").read_text().count("\n") == 8


def test_sampling_is_scored_with_its_options(run_dir, tmp_path):
    test_file = tmp_path / "test.tsv"
    test_file.write_text("3 May 21\t2021-05-03\n12/4/99\t1999-04-12\n", encoding="utf-8")
    scores = evaluate.main([str(run_dir), "--data", str(test_file), "--strategy", "sample",
                            "--temperature", "0.5", "--top-k", "3", "--seed", "4"])
    assert scores["sentences"] == 2
    assert (scores["strategy"], scores["temperature"], scores["top_k"], scores["seed"]) == (
        "sample", 0.5, 3, 4)
    assert "top_p" not in scores  # off


def test_scores_other_weights_in_the_run_folder(run_dir, tmp_path, capsys):
    # E.g. the weights a time budget kept: the run's model, these weights, these translations.
    directory = RunFolder.load(run_dir)
    translator = directory.translator()  # its traced decoding reads the model's variables
    trained = translator.translate_texts(["abc", "cab", "bca"])
    rng = np.random.default_rng(0)
    directory.model.set_weights([w + rng.normal(0.0, 0.5, w.shape).astype(w.dtype)
                                 for w in directory.model.get_weights()])
    weights = tmp_path / "other.weights.h5"
    directory.model.save_weights(weights)
    expected = translator.translate_texts(["abc", "cab", "bca"])
    assert expected != trained
    test_file = tmp_path / "test.tsv"
    test_file.write_text("abc\t2021\ncab\t2021\nbca\t2021\n", encoding="utf-8")
    hypotheses = tmp_path / "hypotheses.txt"
    evaluate.main([str(run_dir), "--weights", str(weights), "--data", str(test_file),
                   "--output", str(hypotheses)])
    assert hypotheses.read_text(encoding="utf-8").splitlines() == expected

    assert evaluate.main([str(run_dir), "--weights", str(tmp_path / "none.weights.h5"),
                          "--data", str(test_file)]) == 1
    assert "none.weights.h5 does not exist" in capsys.readouterr().err
    saved_model = tmp_path / "saved" / "1"
    saved_model.mkdir(parents=True)
    (saved_model / "saved_model.pb").write_bytes(b"")
    assert evaluate.main([str(saved_model), "--weights", str(weights),
                          "--data", str(test_file)]) == 1
    assert "is a SavedModel: its weights are fixed" in capsys.readouterr().err
