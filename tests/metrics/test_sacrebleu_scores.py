"""BLEU, chrF and exact match against sacreBLEU called directly, and reference grouping."""

import pytest
import sacrebleu

from keras_nmt.metrics import CorpusScore, corpus_bleu, corpus_chrf, exact_match, reference_streams
from keras_nmt.workshop.evaluation import group_references

# Cased text with punctuation, contractions and non-ASCII: proves the strings reach sacreBLEU as is.
HYPOTHESES = [
    "Hello, World! It's me.",
    "I don't think so; maybe tomorrow?",
    "The café is closed (for now).",
    "Tom is taller than Mary.",
]
REFERENCES = [
    "Hello, world! It is me.",
    "I don't think so. Maybe tomorrow?",
    "The café is closed for now.",
    "Tom is taller than Mary.",
]


def test_bleu_perfect_and_empty():
    perfect = corpus_bleu(REFERENCES, REFERENCES)
    assert perfect.score == pytest.approx(100.0)
    assert isinstance(perfect.score, float)
    assert corpus_bleu(["", "", "", ""], REFERENCES).score == 0.0


def test_bleu_equals_sacrebleu_on_raw_strings():
    ours = corpus_bleu(HYPOTHESES, REFERENCES)
    direct = sacrebleu.corpus_bleu(HYPOTHESES, [REFERENCES])
    assert ours.score == pytest.approx(direct.score, abs=1e-12)
    assert 0.0 < ours.score < 100.0
    assert ours.name == "BLEU"
    version = sacrebleu.__version__
    assert ours.signature == f"nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:{version}"
    assert ours.details == str(direct)
    assert str(ours) == f"BLEU = {ours.score:.2f} ({ours.signature})"
    # Mixed case: lower-casing the inputs (or letting sacreBLEU do it) gives another number.
    lowered = sacrebleu.corpus_bleu(
        [h.lower() for h in HYPOTHESES], [[r.lower() for r in REFERENCES]]
    )
    assert ours.score != pytest.approx(lowered.score)
    assert corpus_bleu(HYPOTHESES, REFERENCES, lowercase=True).score == pytest.approx(lowered.score)
    # 13a tokenization happens inside sacreBLEU, not before: "tok:none" on the raw strings differs.
    untokenized = sacrebleu.corpus_bleu(HYPOTHESES, [REFERENCES], tokenize="none")
    assert ours.score != pytest.approx(untokenized.score)


def test_bleu_multi_reference_helps_when_second_reference_matches():
    hypotheses = ["The weather is nice today.", "He left early."]
    first_only = ["Today the weather is good.", "He went away early."]
    second = ["The weather is nice today.", "He left early."]
    single = corpus_bleu(hypotheses, first_only)
    multi = corpus_bleu(hypotheses, [[a, b] for a, b in zip(first_only, second, strict=True)])
    assert multi.score == pytest.approx(100.0)
    assert single.score < 30.0
    assert "nrefs:2" in multi.signature
    direct = sacrebleu.corpus_bleu(hypotheses, [first_only, second])
    assert multi.score == pytest.approx(direct.score)


def test_bleu_variable_reference_count():
    hypotheses = ["It is raining hard outside.", "See you tomorrow, Tom."]
    references = [["It rains heavily outside.", "It is raining hard outside now."], ["Bye, Tom."]]
    ours = corpus_bleu(hypotheses, references)
    direct = sacrebleu.corpus_bleu(
        hypotheses,
        [["It rains heavily outside.", "Bye, Tom."], ["It is raining hard outside now.", None]],
    )
    assert ours.score == pytest.approx(direct.score)
    assert "nrefs:var" in ours.signature
    # Padding a stream with a duplicate reference (the pre-1.5 work-around) gives the same BLEU,
    # so the None padding neither adds nor removes anything.
    duplicated = sacrebleu.corpus_bleu(
        hypotheses,
        [
            ["It rains heavily outside.", "Bye, Tom."],
            ["It is raining hard outside now.", "Bye, Tom."],
        ],
    )
    assert ours.score == pytest.approx(duplicated.score)
    assert 0.0 < ours.score < 100.0


def test_reference_streams():
    assert reference_streams([["a", "b", "c"], "d", ["e"]]) == [
        ["a", "d", "e"],
        ["b", None, None],
        ["c", None, None],
    ]


def test_chrf_equals_sacrebleu():
    ours = corpus_chrf(HYPOTHESES, REFERENCES)
    direct = sacrebleu.corpus_chrf(HYPOTHESES, [REFERENCES])
    assert ours.score == pytest.approx(direct.score, abs=1e-12)
    assert ours.name == "chrF2"
    assert ours.signature.startswith("nrefs:1|case:mixed|eff:yes|nc:6|nw:0|space:no")
    assert corpus_chrf(REFERENCES, REFERENCES).score == pytest.approx(100.0)
    plus = corpus_chrf(HYPOTHESES, REFERENCES, word_order=2)
    assert plus.name == "chrF2++"
    assert plus.score == pytest.approx(
        sacrebleu.corpus_chrf(HYPOTHESES, [REFERENCES], word_order=2).score
    )


def test_chrf_multi_reference_equals_sacrebleu():
    hypotheses = ["The weather is nice today.", "He left early."]
    references = [["Today the weather is good.", "The weather is nice today."], ["He went early."]]
    ours = corpus_chrf(hypotheses, references)
    direct = sacrebleu.corpus_chrf(hypotheses, reference_streams(references))
    assert ours.score == pytest.approx(direct.score)
    single = corpus_chrf(hypotheses, [refs[0] for refs in references])
    assert ours.score > single.score


def test_exact_match():
    hypotheses = ["Hi. ", "Bye", " Good night.", "thanks"]
    references = [["Hello.", "Hi."], "Bye!", ["Good night."], "Thanks"]
    assert exact_match(hypotheses, references) == 0.5  # Hi. and Good night.
    assert exact_match(["a"], ["a"]) == 1.0


def test_errors():
    with pytest.raises(ValueError):
        corpus_bleu([], [])
    with pytest.raises(ValueError):
        corpus_chrf(["a", "b"], ["a"])
    with pytest.raises(ValueError):
        exact_match(["a"], [[]])
    with pytest.raises(TypeError):
        corpus_bleu("a string", ["a string"])


def test_group_references_keeps_first_occurrence_order():
    pairs = [
        ("Hola.", "Hi."),
        ("Adiós.", "Bye."),
        ("Hola.", "Hello."),
        ("Gracias.", "Thanks."),
        ("Hola.", "Hi."),  # duplicate pair
        ("Adiós.", "Goodbye."),
    ]
    sources, references = group_references(pairs)
    assert sources == ["Hola.", "Adiós.", "Gracias."]
    assert references == [["Hi.", "Hello."], ["Bye.", "Goodbye."], ["Thanks."]]
    # Grouped references plug straight into the scores (chrF: BLEU has no 4-grams in 2 tokens).
    hypotheses = ["Hello.", "Goodbye.", "Thanks."]
    assert corpus_chrf(hypotheses, references).score == pytest.approx(100.0)
    assert exact_match(hypotheses, references) == 1.0


def test_corpus_score_is_a_frozen_dataclass():
    score = CorpusScore("BLEU", 12.345, "sig")
    assert str(score) == "BLEU = 12.35 (sig)"
    with pytest.raises(AttributeError):
        score.score = 1.0
