"""Corpus readers: formats, compression, source side, errors with file and line, skip counts."""

import gzip
import lzma
import zipfile

import pytest

from keras_nmt.workshop.corpora.corpus import (
    filter_pairs,
    load_corpus,
    read_aligned,
    read_tsv,
    resolve_path,
)
from keras_nmt.workshop.corpora.errors import CorpusError
from keras_nmt.workshop.corpora.parallel_corpus import CorpusStats

TWO_COLUMNS = "Go.\tVe.\nHi.\tHola.\nRun!\t¡Corre!\n"
THREE_COLUMNS = (
    "Go.\tVa !\tCC-BY 2.0 (France) Attribution: tatoeba.org #2877272 (CM) & #1158250 (Wittydev)\n"
    "Hi.\tSalut !\tCC-BY 2.0 (France) Attribution: tatoeba.org #538123 (CM) & #509819 (Aiji)\n"
)


def write(path, text, opener=open):
    with opener(path, "wb") as stream:
        stream.write(text.encode("utf-8") if isinstance(text, str) else text)
    return path


def test_two_columns_default_source_is_the_other_language(tmp_path):
    corpus = read_tsv(write(tmp_path / "spa.txt", TWO_COLUMNS), source_column=1)
    assert corpus.pairs == [("Ve.", "Go."), ("Hola.", "Hi."), ("¡Corre!", "Run!")]
    assert (corpus.stats.read, corpus.stats.kept, corpus.stats.num_skipped) == (3, 3, 0)
    assert len(corpus) == 3 and corpus[1] == ("Hola.", "Hi.")
    assert corpus.sources == ["Ve.", "Hola.", "¡Corre!"]


def test_three_columns_attribution_ignored_and_english_source(tmp_path):
    corpus = read_tsv(write(tmp_path / "fra.txt", THREE_COLUMNS), source_column=0)
    assert corpus.pairs == [("Go.", "Va !"), ("Hi.", "Salut !")]


def test_invalid_source_column(tmp_path):
    with pytest.raises(ValueError, match="source_column"):
        read_tsv(write(tmp_path / "a.tsv", TWO_COLUMNS), source_column=2)


@pytest.mark.parametrize(
    "name, opener", [("a.tsv.gz", gzip.open), ("a.tsv.xz", lzma.open), ("a.tsv", open)]
)
def test_compressed_files(tmp_path, name, opener):
    corpus = read_tsv(write(tmp_path / name, TWO_COLUMNS, opener), source_column=1)
    assert corpus.pairs[2] == ("¡Corre!", "Run!")
    assert corpus.stats.kept == 3


def test_zip_single_text_member_skips_about_file(tmp_path):
    path = tmp_path / "spa-eng.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("_about.txt", "Attribution: www.manythings.org/anki and tatoeba.org\n")
        archive.writestr("spa.txt", TWO_COLUMNS)
    corpus = read_tsv(path, source_column=1)
    assert corpus.pairs[0] == ("Ve.", "Go.")
    assert "spa.txt" in corpus.stats.source


def test_zip_named_member_and_ambiguous_zip(tmp_path):
    path = tmp_path / "two.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("data/spa.txt", TWO_COLUMNS)
        archive.writestr("data/fra.txt", THREE_COLUMNS)
    with pytest.raises(CorpusError, match="exactly one") as error:
        read_tsv(path, source_column=1)
    assert error.value.reason == "zip_member" and str(path) in str(error.value)
    assert read_tsv(path, member="fra.txt", source_column=1).pairs[1] == ("Salut !", "Hi.")
    assert read_tsv(path, member="data/spa.txt", source_column=1).stats.kept == 3
    with pytest.raises(CorpusError, match="no member 'deu.txt'"):
        read_tsv(path, member="deu.txt", source_column=1)


def test_line_aligned_files(tmp_path):
    source = write(tmp_path / "train.es", "Ve.\nHola.\n")
    target = write(tmp_path / "train.en.gz", "Go.\nHi.\n", gzip.open)
    corpus = read_aligned(source, target)
    assert corpus.pairs == [("Ve.", "Go."), ("Hola.", "Hi.")]
    assert corpus.stats.read == 2


def test_line_aligned_length_mismatch_names_both_files(tmp_path):
    source = write(tmp_path / "a.src", "1\n2\n3\n")
    target = write(tmp_path / "a.tgt", "1\n2\n")
    with pytest.raises(CorpusError, match=r"3 lines in .*a\.src, 2 lines in .*a\.tgt"):
        read_aligned(source, target)


def test_line_aligned_empty_line_error_and_skip(tmp_path):
    source = write(tmp_path / "a.src", "uno\n\ntres\n")
    target = write(tmp_path / "a.tgt", "one\ntwo\nthree\n")
    with pytest.raises(CorpusError) as error:
        read_aligned(source, target)
    assert str(error.value).startswith(f"{source}, line 2:")
    corpus = read_aligned(source, target, on_error="skip")
    assert corpus.pairs == [("uno", "one"), ("tres", "three")]
    assert corpus.stats.skipped == {"empty_side": 1}


BAD = (
    b"Go.\tVe.\n"  # 1 fine
    b"Hi.\n"  # 2 one column
    b"Run!\t\n"  # 3 empty side
    b"Wow!\t\xff\xfe!\n"  # 4 invalid UTF-8
    b"a\tb\tc\td\n"  # 5 four columns
    b"\n"  # 6 blank, ignored
    b"Fire!\t\xc2\xa1Fuego!\r\n"  # 7 fine (CRLF tolerated)
)


@pytest.mark.parametrize(
    "content, line, reason, text",
    [
        (b"Go.\tVe.\nHi.\n", 2, "columns", "expected 2 or 3 tab-separated columns"),
        (b"Go.\tVe.\nRun!\t \n", 2, "empty_side", "the second column is empty"),
        (b"\tVe.\n", 1, "empty_side", "the first (English) column is empty"),
        (b"Go.\tVe.\nA\tB\nWow!\t\xff!\n", 3, "utf8", "invalid UTF-8 at byte 5"),
        (b"a\tb\tc\td\n", 1, "columns", "found 4"),
    ],
)
def test_malformed_line_error_names_file_and_line(tmp_path, content, line, reason, text):
    path = write(tmp_path / "bad.tsv", content)
    with pytest.raises(CorpusError) as error:
        read_tsv(path, source_column=1)
    assert str(error.value).startswith(f"{path}, line {line}: ")
    assert text in str(error.value)
    assert (error.value.line, error.value.reason, error.value.path) == (line, reason, str(path))


def test_skip_mode_counts_each_reason(tmp_path):
    corpus = read_tsv(write(tmp_path / "bad.tsv", BAD), on_error="skip", source_column=1)
    assert corpus.pairs == [("Ve.", "Go."), ("¡Fuego!", "Fire!")]
    stats = corpus.stats
    assert stats.skipped == {"columns": 2, "empty_side": 1, "utf8": 1}
    assert (stats.read, stats.kept, stats.num_skipped, stats.blank) == (7, 2, 4, 1)
    assert stats.read == stats.kept + stats.num_skipped + stats.blank + stats.filtered_too_long
    path = tmp_path / "bad.tsv"
    assert stats.summary() == (
        f"{path}: read 7 lines, kept 2 pairs; skipped 4 (2 wrong column count, "
        f"1 empty side, 1 invalid UTF-8); first skipped: {path}:2, {path}:3, {path}:4, "
        f"{path}:5; 1 blank lines ignored"
    )


def test_on_error_must_be_known(tmp_path):
    with pytest.raises(ValueError, match="on_error"):
        read_tsv(write(tmp_path / "a.tsv", TWO_COLUMNS), on_error="ignore", source_column=1)


def test_empty_corpus_is_an_error(tmp_path):
    with pytest.raises(CorpusError, match="no sentence pairs") as error:
        read_tsv(write(tmp_path / "empty.tsv", b""), source_column=1)
    assert error.value.reason == "empty_corpus" and str(tmp_path / "empty.tsv") in str(error.value)
    with pytest.raises(CorpusError, match="no sentence pairs.*skipped 2"):
        read_tsv(write(tmp_path / "allbad.tsv", b"x\ny\n"), on_error="skip", source_column=1)


def test_max_chars_filters_and_counts(tmp_path):
    text = "Go.\tVe.\nThis is long.\tEsto es largo.\nHi.\tHola, amigo mio.\nOk.\tVale.\n"
    corpus = read_tsv(write(tmp_path / "a.tsv", text), max_chars=10, source_column=1)
    assert corpus.pairs == [("Ve.", "Go."), ("Vale.", "Ok.")]
    assert (corpus.stats.filtered_too_long, corpus.stats.kept, corpus.stats.read) == (2, 2, 4)
    assert corpus.stats.summary().endswith("kept 2 pairs; 2 longer than 10 characters filtered")
    # The limit is inclusive: "Hola, amigo mio." has 16 characters.
    assert read_tsv(write(tmp_path / "b.tsv", text), max_chars=16).stats.filtered_too_long == 0
    assert read_tsv(write(tmp_path / "c.tsv", text), max_chars=15).stats.filtered_too_long == 1


def test_corpus_stats_docstring_example():
    stats = CorpusStats("a.tsv", read=5, kept=3, skipped={"columns": 1}, filtered_too_long=1)
    assert stats.num_skipped == 1 and str(stats).startswith("a.tsv: read 5 lines, kept 3 pairs")


def test_load_corpus_builtin_and_paths(tmp_path):
    dates = load_corpus("dates", split="valid", size=50, seed=3)
    assert len(dates) == 50 and dates.stats.source == "dates:valid (seed 3)"
    assert load_corpus("dates", size=10).stats.source == "dates:train (seed 0)"
    assert (
        filter_pairs([("aaaa", "b"), ("a", "b")], "mem", max_chars=3).stats.filtered_too_long == 1
    )

    write(tmp_path / "x.train.tsv.xz", TWO_COLUMNS, lzma.open)
    write(tmp_path / "x.valid.tsv", "Hi.\tHola.\n")
    template = str(tmp_path / "x.{split}.tsv")
    assert len(load_corpus(template, split="train", source_column=1)) == 3
    assert load_corpus(template, split="valid", source_column=1).pairs == [("Hola.", "Hi.")]
    assert resolve_path(tmp_path / "x.train.tsv") == tmp_path / "x.train.tsv.xz"
    with pytest.raises(FileNotFoundError, match="x.test.tsv"):
        load_corpus(template, split="test", source_column=1)
    with pytest.raises(ValueError, match="placeholder"):
        load_corpus(template, source_column=1)

    single = str(tmp_path / "x.valid.tsv")
    assert load_corpus(single, source_column=0).pairs == [("Hi.", "Hola.")]
    with pytest.raises(ValueError, match="no splits"):
        load_corpus(single, split="test", source_column=1)

    write(tmp_path / "s.txt", "uno\ndos\n")
    write(tmp_path / "t.txt", "one\ntwo\n")
    aligned = load_corpus(f"{tmp_path / 's.txt'},{tmp_path / 't.txt'}")
    assert aligned.pairs == [("uno", "one"), ("dos", "two")]
    assert load_corpus((tmp_path / "s.txt", tmp_path / "t.txt")).pairs == aligned.pairs

    with pytest.raises(FileNotFoundError, match="not a built-in dataset"):
        load_corpus(str(tmp_path / "missing.tsv"), source_column=1)


def test_shared_spanish_english(shared_data):
    corpus = load_corpus(str(shared_data / "spa-eng.{split}.tsv"), split="test", source_column=1)
    assert len(corpus) == 2000 and corpus.stats.num_skipped == 0
    # Spanish -> English by default: the target side is English.
    assert all(source != target for source, target in corpus.pairs[:100])


def test_has_splits_tells_built_in_and_split_paths_from_single_files(tmp_path):
    from keras_nmt.workshop.corpora.corpus import has_splits

    assert has_splits("dates")
    assert has_splits(str(tmp_path / "spa-eng.{split}.tsv"))
    assert not has_splits(str(tmp_path / "pairs.tsv"))
    assert not has_splits((tmp_path / "a.txt", tmp_path / "b.txt"))
    assert not has_splits("spa-eng")
