"""apps/evaluate.py: scores that match the metrics on the same hypotheses, files written."""

import json

import pytest

from apps import evaluate
from keras_nmt.metrics import corpus_bleu, corpus_cer, exact_match
from tests.export.helpers import make_run_directory


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    return make_run_directory(tmp_path_factory.mktemp("evaluate") / "run")


def test_scores_a_test_file_and_writes_hypotheses_and_json(run_dir, tmp_path, capsys):
    test_file = tmp_path / "test.tsv"
    # English<TAB>source, Tatoeba style; the repeated source has two references.
    test_file.write_text("abc\tcab\nab\tba\nbca\tcab\n", encoding="utf-8")
    report = tmp_path / "report.json"
    hypotheses_file = tmp_path / "hypotheses.txt"
    scores = evaluate.main([
        str(run_dir), "--data", str(test_file), "--json", str(report),
        "--hypotheses", str(hypotheses_file), "--batch-size", "1",
    ])
    hypotheses = hypotheses_file.read_text(encoding="utf-8").splitlines()
    assert len(hypotheses) == 2  # "cab" twice -> one sentence with two references
    references = [["abc", "bca"], ["ab"]]
    assert scores["sentences"] == 2
    assert scores["bleu"] == pytest.approx(corpus_bleu(hypotheses, references).score)
    assert scores["cer"] == pytest.approx(corpus_cer(hypotheses, references).rate)
    assert scores["exact_match"] == pytest.approx(exact_match(hypotheses, references))
    assert json.loads(report.read_text())["bleu_signature"].startswith("nrefs:")
    printed = capsys.readouterr().out
    assert "| bleu |" in printed and "signature" in printed


def test_built_in_test_split_with_beam_search(run_dir):
    scores = evaluate.main([str(run_dir), "--data", "dates", "--size", "8", "--beam-size", "2"])
    assert scores["sentences"] == 8 and scores["beam_size"] == 2
    assert 0.0 <= scores["exact_match"] <= 1.0
    assert (run_dir / "hypotheses.txt").read_text().count("\n") == 8
