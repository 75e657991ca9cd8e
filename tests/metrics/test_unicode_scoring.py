"""`score_all` scores hypotheses and references in one Unicode form: a perfect translation (the
tokenizers output NFKC) scores 100 against NFC and NFD references alike."""

import unicodedata

import pytest

from keras_nmt.metrics.sacrebleu_scores import corpus_bleu
from keras_nmt.workshop import markdown
from keras_nmt.workshop.evaluation import score_all

SENTENCES = ["Le café à Noël était très agréable.", "Où est la fenêtre ?", "Ça coûte 5 €."]


@pytest.mark.parametrize("form", ["NFC", "NFD"])
def test_perfect_nfkc_hypotheses_score_100_against_references_in_any_form(form):
    hypotheses = [unicodedata.normalize("NFKC", text) for text in SENTENCES]
    references = [[unicodedata.normalize(form, text)] for text in SENTENCES]
    scores = score_all(hypotheses, references)
    assert scores["bleu"] == pytest.approx(100.0)
    assert scores["chrf"] == pytest.approx(100.0)
    assert scores["exact_match"] == 1.0
    assert scores["cer"] == scores["wer"] == 0.0
    assert scores["unicode_form"] == "NFKC"
    assert "scored in Unicode NFKC" in markdown.scores_table(scores)


def test_nfd_references_would_lower_bleu_without_the_normalization():
    # The failure `score_all` prevents: sacreBLEU compares code points as given.
    hypotheses = [unicodedata.normalize("NFKC", text) for text in SENTENCES]
    references = [unicodedata.normalize("NFD", text) for text in SENTENCES]
    assert corpus_bleu(hypotheses, references).score < 90
