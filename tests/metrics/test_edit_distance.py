"""Levenshtein distance, alignments, and corpus WER/CER on hand-checked examples."""

import pytest

from keras_nmt.metrics import (
    Alignment,
    ErrorRate,
    corpus_cer,
    corpus_error_rate,
    corpus_wer,
    edit_distance_table,
    levenshtein,
)


def _check_invariants(a, b, alignment, sub=1, ins=1, dele=1):
    assert alignment.hits + alignment.substitutions + alignment.deletions == len(a)
    assert alignment.hits + alignment.substitutions + alignment.insertions == len(b)
    cost = alignment.substitutions * sub + alignment.insertions * ins + alignment.deletions * dele
    assert cost == alignment.distance


def test_intention_execution_unit_costs():
    alignment = levenshtein("intention", "execution")
    assert alignment.distance == 5
    # Ties go to the diagonal: i/e n/x t/e e/c n/u substituted, "tion" kept.
    assert alignment == Alignment(distance=5, substitutions=5, deletions=0, insertions=0, hits=4)
    _check_invariants("intention", "execution", alignment)


def test_intention_execution_substitution_costs_two():
    alignment = levenshtein("intention", "execution", substitution_cost=2)
    assert alignment.distance == 8
    # The textbook alignment: delete i, n->e, t->x, keep e, insert c, n->u, keep t i o n.
    assert alignment == Alignment(distance=8, substitutions=3, deletions=1, insertions=1, hits=5)
    _check_invariants("intention", "execution", alignment, sub=2)


def test_hello_hella():
    assert levenshtein("hello", "hella") == Alignment(1, 1, 0, 0, 4)


def test_monkey_money_table():
    # Rows: prefixes of "monkey" ("", m, mo, ...); columns: prefixes of "money". Filled by hand.
    expected = [
        #  ""  m  o  n  e  y
        [0, 1, 2, 3, 4, 5],  # ""
        [1, 0, 1, 2, 3, 4],  # m
        [2, 1, 0, 1, 2, 3],  # o
        [3, 2, 1, 0, 1, 2],  # n
        [4, 3, 2, 1, 1, 2],  # k
        [5, 4, 3, 2, 1, 2],  # e
        [6, 5, 4, 3, 2, 1],  # y
    ]
    assert edit_distance_table("monkey", "money") == expected
    assert levenshtein("monkey", "money") == Alignment(1, 0, 1, 0, 5)  # delete k
    # The other direction is the transposed table and an insertion.
    transposed = [list(column) for column in zip(*expected, strict=True)]
    assert edit_distance_table("money", "monkey") == transposed
    assert levenshtein("money", "monkey") == Alignment(1, 0, 0, 1, 5)


def test_costs_weight_deletions_and_insertions():
    assert levenshtein("abc", "", deletion_cost=2).distance == 6
    assert levenshtein("", "ab", insertion_cost=3).distance == 6
    # A substitution dearer than delete + insert is never used.
    alignment = levenshtein("a", "b", substitution_cost=5)
    assert alignment == Alignment(distance=2, substitutions=0, deletions=1, insertions=1, hits=0)
    assert levenshtein("", "") == Alignment(0, 0, 0, 0, 0)


def test_works_on_token_lists():
    alignment = levenshtein([5, 6, 7], [5, 7, 8])
    assert alignment.distance == 2
    _check_invariants([5, 6, 7], [5, 7, 8], alignment)


@pytest.mark.parametrize(
    "reference, hypothesis, s, d, i",
    [
        ("the cat sat on the mat", "the cat sit on mat", 1, 1, 0),
        ("a b c", "a x b c d", 0, 0, 2),
        ("hello world", "", 0, 2, 0),
        ("one two three", "one too three four", 1, 0, 1),
        ("same words here", "same words here", 0, 0, 0),
    ],
)
def test_wer_counts(reference, hypothesis, s, d, i):
    result = corpus_wer([hypothesis], [reference])
    n = len(reference.split())
    assert (result.substitutions, result.deletions, result.insertions) == (s, d, i)
    assert result.edits == s + d + i
    assert result.reference_length == n
    assert result.rate == pytest.approx((s + d + i) / n)


def test_wer_splits_on_any_whitespace_only():
    result = corpus_wer(["the  cat\tsat."], ["the cat sat"])
    assert (result.substitutions, result.edits, result.reference_length) == (1, 1, 3)


def test_corpus_aggregation_is_total_over_total():
    long_ref = "w1 w2 w3 w4 w5 w6 w7 w8 w9 w10"
    long_hyp = "w1 w2 w3 w4 XX w6 w7 w8 w9 w10"  # 1 edit / 10 words
    result = corpus_wer([long_hyp, "no"], [long_ref, "yes"])  # short: 1 edit / 1 word
    assert result == ErrorRate(
        rate=2 / 11, edits=2, substitutions=2, deletions=0, insertions=0, reference_length=11
    )
    assert result.rate == pytest.approx(0.181818, abs=1e-6)
    assert result.rate != pytest.approx((0.1 + 1.0) / 2)  # not the mean of sentence rates (0.55)


def test_empty_references():
    assert corpus_wer([""], [""]) == ErrorRate(0.0, 0, 0, 0, 0, 0)
    # Empty reference, two inserted words: the denominator is max(0, 1) = 1.
    assert corpus_wer(["a b"], [""]) == ErrorRate(2.0, 2, 0, 0, 2, 0)
    assert corpus_cer([""], [""]).rate == 0.0


def test_cer_counts_spaces_and_collapses_whitespace():
    result = corpus_cer(["hella"], ["hello"])
    assert (result.rate, result.substitutions, result.reference_length) == (0.2, 1, 5)
    # "the cat" has 7 characters; the missing space is one deletion.
    result = corpus_cer(["thecat"], ["the cat"])
    assert (result.deletions, result.edits, result.reference_length) == (1, 1, 7)
    assert corpus_cer(["  the   cat "], ["the cat"]).edits == 0


def test_cer_corpus_aggregation():
    result = corpus_cer(["abcdefghij", "x"], ["abcdefghiz", "y"])
    assert result.rate == pytest.approx(2 / 11)


def test_multiple_references_use_the_closest():
    result = corpus_wer(["good night"], [["hello there friend", "good night"]])
    assert (result.edits, result.reference_length) == (0, 2)
    result = corpus_cer(["hallo"], [["goodbye", "hello"]])
    assert (result.edits, result.reference_length, result.rate) == (1, 5, 0.2)


def test_corpus_error_rate_on_token_ids():
    result = corpus_error_rate([[4, 5], [7]], [[[4, 5, 6]], [[7], [8, 9]]])
    assert (result.edits, result.deletions, result.reference_length) == (1, 1, 4)
    assert result.rate == 0.25


def test_length_mismatch_raises():
    with pytest.raises(ValueError):
        corpus_wer(["a", "b"], ["a"])
    with pytest.raises(ValueError):
        corpus_wer(["a"], [[]])
