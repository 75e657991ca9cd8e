"""Bad lines, wide files, invisible sides and corrupt archives: counted, chosen, or named."""

import gzip
import lzma
import os

import pytest

from keras_nmt.workshop.corpora.corpus import load_corpus, read_tsv
from keras_nmt.workshop.corpora.corpus_checks import check_bad_lines
from keras_nmt.workshop.corpora.errors import CorpusError


def write(path, text):
    path.write_text(text, encoding="utf-8")
    return path


def test_skipped_lines_are_counted_reported_and_limited(tmp_path):
    lines = ["Go.\tVe."] * 8 + ["only one column", "a\tb\tc\td"]
    path = write(tmp_path / "c.tsv", "\n".join(lines) + "\n")
    corpus = read_tsv(path, on_error="skip", source_column=1)
    assert len(corpus) == 8 and corpus.stats.num_skipped == 2
    assert corpus.stats.first_skipped == [f"{path}:9", f"{path}:10"]
    assert f"{path}:9" in corpus.stats.summary()
    check_bad_lines(corpus.stats, 0.2)  # 2 of 10: allowed
    with pytest.raises(CorpusError, match=r"2 of 10 lines malformed, more than 10\.0%.*:9"):
        check_bad_lines(corpus.stats, 0.1)


def test_columns_of_a_wider_file(tmp_path):
    path = write(tmp_path / "wide.tsv", "1\tGo.\t2\tVe.\tCC-BY\n3\tRun!\t4\tCorre.\tCC-BY\n")
    corpus = load_corpus(path, source_column=3, target_column=1)
    assert corpus.pairs == [("Ve.", "Go."), ("Corre.", "Run!")]
    with pytest.raises(CorpusError, match="line 1: expected 2 or 3"):
        load_corpus(path)  # the default reader still refuses 5 columns, naming the line
    with pytest.raises(CorpusError, match="at least 7"):
        read_tsv(path, source_column=6, target_column=1)


def test_sides_made_of_invisible_characters_are_dropped_and_counted(tmp_path):
    path = write(tmp_path / "z.tsv", "Go.\tVe.\nHi.\t\u200d\u200d\n\u200b\tHola.\n")
    corpus = read_tsv(path, source_column=1)
    assert corpus.pairs == [("Ve.", "Go.")]
    assert corpus.stats.skipped == {"invisible": 2}


def test_corrupt_and_truncated_archives_name_the_file(tmp_path):
    text = "".join(f"Sentence {i}.\tFrase {i} {os.urandom(8).hex()}.\n" for i in range(3000))
    good = gzip.compress(text.encode())
    truncated = tmp_path / "truncated.tsv.gz"
    truncated.write_bytes(good[: len(good) // 2])
    corrupt = tmp_path / "corrupt.tsv.gz"
    damaged = bytearray(good)
    for index in range(200, len(damaged) - 100, 97):
        damaged[index] ^= 0x5A
    corrupt.write_bytes(bytes(damaged))
    xz = tmp_path / "truncated.tsv.xz"
    xz.write_bytes(lzma.compress(text.encode())[:5000])
    for path in (truncated, corrupt, xz):
        with pytest.raises(CorpusError, match=f"{path.name}: corrupt or truncated"):
            load_corpus(path, source_column=1)


def test_a_directory_is_named_as_one(tmp_path):
    with pytest.raises(CorpusError, match="is a directory"):
        load_corpus(tmp_path, source_column=1)
