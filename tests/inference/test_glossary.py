"""Glossaries (terms a translation must use) and word alignments from attention."""

import numpy as np
import pytest

from keras_nmt.inference.translation_result import TranslationResult
from keras_nmt.workshop.cli import translate as translate_app
from keras_nmt.workshop.translators.glossary import MAX_TERM_CHARS, Glossary, GlossaryError
from keras_nmt.workshop.translators.open_translator import open_translator
from keras_nmt.workshop.translators.word_alignment import confidence, word_alignment
from tests.export.helpers import SOURCES, make_run_folder


def _result(source_tokens, target_tokens, links, score=-2.0):
    """A greedy result whose attention puts 0.9 on the source token `links[j]` of target
    token j (`</s>` attends evenly)."""
    weights = np.full((len(target_tokens), len(source_tokens)), 0.1 / len(source_tokens),
                      np.float32)
    for j, i in enumerate(links):
        weights[j, i] += 0.9
    text = "".join(target_tokens[:-1]).replace("▁", " ").strip()
    return TranslationResult([text], [score], weights, source_tokens, target_tokens)


# "El perro negro duerme." -> "The black dog sleeps." (pieces: ▁El ▁perro ▁negro ▁duerme .)
SOURCE = "El perro negro duerme."
RESULT = _result(["▁El", "▁perro", "▁negro", "▁duer", "me", "."],
                 ["▁The", "▁black", "▁dog", "▁sleep", "s", ".", "</s>"],
                 [0, 2, 1, 3, 4, 5, 5])


def test_words_are_linked_to_the_source_word_they_attend_to_most():
    assert word_alignment(RESULT) == {
        "source_words": ["El", "perro", "negro", "duerme."],
        "target_words": ["The", "black", "dog", "sleeps."],
        "links": [[0, 0], [2, 1], [1, 2], [3, 3]],
    }
    assert confidence(RESULT) == pytest.approx(-2.0 / 7)


@pytest.mark.parametrize("terms, expected", [
    ({"perro": "hound"}, "The black hound sleeps."),
    ({"Perro  Negro": "raven hound"}, "The raven hound sleeps."),  # case, spaces; one span
    ({"duerme": "rests"}, "The black dog rests."),  # the word's punctuation stays
    ({"perro": "dog"}, "The black dog sleeps."),  # already there: unchanged
    ({"perro": "perro"}, "The black perro sleeps."),  # not to be translated
    ({"gato": "cat"}, "The black dog sleeps."),  # not in the sentence
])
def test_each_term_replaces_the_words_aligned_with_it(terms, expected):
    assert Glossary(terms).apply(SOURCE, RESULT) == expected


def test_a_term_the_attention_points_nowhere_is_still_written():
    # "negro" gets no target word (every word attends elsewhere): the term goes after the
    # words aligned with the source words before it.
    result = _result(["▁El", "▁perro", "▁negro"], ["▁The", "▁dog", "</s>"], [0, 1, 1])
    assert Glossary({"negro": "black"}).apply("El perro negro", result) == "The dog black"


def test_longer_terms_win_and_words_match_whole():
    glossary = Glossary({"paseo": "walk", "dar un paseo": "take a stroll", "mar": "sea"})
    found = glossary.find("Vamos a dar un paseo por el mar, Marta.")
    assert [m.target for m in found] == ["take a stroll", "sea"]


@pytest.mark.parametrize("entries, error", [
    ({}, "the glossary is empty"),
    ({"": "x"}, "entry 1: the source term is empty"),
    ({"a": " "}, "entry 1: the target term is empty"),
    ({"a": "b", "x" * (MAX_TERM_CHARS + 1): "y"},
     f"entry 2: the source term has {MAX_TERM_CHARS + 1} characters; at most "
     f"{MAX_TERM_CHARS}"),
    ({"a\tb": "c"}, "entry 1: the source term holds a tab or line break"),
    ([("Perro", "dog"), ("perro", "hound")], "entry 2: the source term 'perro' is given twice"),
])
def test_a_glossary_that_cannot_be_used_is_refused_naming_the_entry(entries, error):
    with pytest.raises(GlossaryError) as raised:
        Glossary(entries)
    assert str(raised.value) == error


def test_a_glossary_file_names_its_line_in_errors(tmp_path):
    path = tmp_path / "terms.tsv"
    path.write_text("# terms\nperro\thound\n\nKeras\ngato\tcat\textra\n")
    with pytest.raises(GlossaryError, match=f"^{path}:5: 3 columns"):
        Glossary.read(path)
    path.write_text("perro\thound\nKeras\n")
    assert Glossary.read(path).terms == {"perro": "hound", "keras": "Keras"}
    path.write_bytes(b"perro\t\xff\n")
    with pytest.raises(GlossaryError, match="not UTF-8"):
        Glossary.read(path)


@pytest.mark.tensorflow
def test_translate_with_a_glossary_writes_every_term(tmp_path, capsys):
    """`keras-nmt translate --glossary` on a model with attention (an untrained Luong model
    of the dates task: whatever it writes, the terms are in it)."""
    luong = make_run_folder(tmp_path / "luong", "luong")
    glossary = tmp_path / "terms.tsv"
    glossary.write_text("March\tMARZO\nMay\n")
    assert translate_app.main([str(luong), "--glossary", str(glossary), *SOURCES]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "MARZO" in lines[0] and "May" in lines[3]
    plain = open_translator(luong).translate_batch(SOURCES[1:3])
    assert lines[1:3] == [r.text for r in plain]  # sentences without a term are unchanged
    glossary.write_text("# nothing\n")
    assert translate_app.main([str(luong), "--glossary", str(glossary), "x"]) == 1
    assert capsys.readouterr().err.strip().endswith(f"error: {glossary}: no terms")
    with pytest.raises(SystemExit):
        translate_app.main([str(luong), "--glossary", str(glossary), "--beam-size", "2", "x"])
    lstm = make_run_folder(tmp_path / "lstm", "lstm")
    glossary.write_text("March\tMARZO\n")
    assert translate_app.main([str(lstm), "--glossary", str(glossary), "x"]) == 1
    assert "gives no attention weights" in capsys.readouterr().err
