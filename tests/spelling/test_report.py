"""The spelling report on hand-made examples with exact numbers."""

import pytest

from keras_nmt.workshop.spelling.report import (
    align_words,
    clean_vocabulary,
    format_report,
    spelling_report,
    vocabulary_key,
)

CLEAN = ["the cat sat", "I like it.", "Go."]
NOISY = ["teh cat sat", "I lik it.", "Go."]
CORRECTED = ["the cat sad", "I lick it.", "Go."]
VOCABULARY = clean_vocabulary(["the cat sat on it", "I like dogs.", "Go!"])


def test_vocabulary_strips_punctuation_and_folds_case():
    assert VOCABULARY == {"the", "cat", "sat", "on", "it", "i", "like", "dogs", "go"}
    assert vocabulary_key("¿Qué?") == "qué"
    assert vocabulary_key("...") == ""


def test_align_words():
    assert align_words(["the", "cat", "sat"], ["the", "sat"]) == ["the", None, "sat"]
    assert align_words(["a", "b"], ["a", "x", "b"]) == ["a", "b"]
    assert align_words(["a", "b"], ["c", "d"]) == ["c", "d"]
    assert align_words([], ["a"]) == []
    assert align_words(["a"], []) == [None]


def test_report_on_hand_made_sentences():
    report = spelling_report(NOISY, CORRECTED, CLEAN, VOCABULARY)
    # Characters: 11 + 10 + 3 = 24. Noisy: "teh" 2 edits, "lik" 1. Corrected: "sad" 1,
    # "lick" for "like" 2.
    assert report["noisy_cer"] == pytest.approx(3 / 24)
    assert report["corrected_cer"] == pytest.approx(3 / 24)
    # Words: 3 + 3 + 1 = 7; one wrong word in each of the first two sentences, before and after.
    assert report["noisy_wer"] == pytest.approx(2 / 7)
    assert report["corrected_wer"] == pytest.approx(2 / 7)
    assert report["noisy_exact"] == pytest.approx(1 / 3)
    assert report["corrected_exact"] == pytest.approx(1 / 3)
    # Correct in the noisy input: cat, sat, I, it., Go. -> the corrector broke "sat".
    assert (report["correct_words"], report["changed_correct_words"]) == (5, 1)
    assert report["changed_correct_rate"] == pytest.approx(0.2)
    # Wrong in the noisy input: the, like -> "the" was fixed, "like" was not.
    assert (report["wrong_words"], report["fixed_words"]) == (2, 1)
    assert report["fixed_rate"] == pytest.approx(0.5)
    # Output words: the cat sad I lick it. Go. -> "sad" and "lick" are not clean training words.
    assert (report["output_words"], report["hallucinated_words"]) == (7, 2)
    assert report["hallucination_rate"] == pytest.approx(2 / 7)
    # Noisy words: teh cat sat I lik it. Go. -> "teh" and "lik" are not clean training words.
    assert (report["noisy_words"], report["noisy_oov_words"]) == (7, 2)
    assert report["noisy_oov_rate"] == pytest.approx(2 / 7)
    assert report["sentences"] == 3
    assert "changed  20.00% (1 of 5)" in format_report(report)


def test_a_dropped_word_counts_as_changed_and_punctuation_is_not_a_word():
    report = spelling_report(["the big dog"], ["the dog !"], ["the big dog"], {"the", "dog"})
    assert (report["correct_words"], report["changed_correct_words"]) == (3, 1)
    assert (report["output_words"], report["hallucinated_words"]) == (2, 0)
    assert report["corrected_wer"] == pytest.approx(2 / 3)


def test_perfect_correction_and_empty_denominators():
    report = spelling_report(["a b"], ["a b"], ["a b"], {"a", "b"})
    assert report["changed_correct_rate"] == 0.0 and report["fixed_rate"] == 0.0
    assert report["corrected_cer"] == 0.0 and report["wrong_words"] == 0
    with pytest.raises(ValueError):
        spelling_report(["a"], [], ["a"], set())
