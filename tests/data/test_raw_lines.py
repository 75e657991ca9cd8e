"""Lines read in bounded memory (`keras_nmt.workshop.corpora.raw_lines`), and the readers that use
it."""

import io

import pytest

from keras_nmt.workshop.corpora.corpus import read_tsv
from keras_nmt.workshop.corpora.errors import CorpusError
from keras_nmt.workshop.corpora.raw_lines import LineTooLong, raw_lines
from keras_nmt.workshop.lines import input_lines, read_lines


class Endless:
    """/dev/zero: bytes without end, no line break (`translate --input /dev/zero` grew until
    the kernel killed it)."""

    read_so_far = 0

    def read(self, size):
        self.read_so_far += size
        return b"\0" * size


@pytest.mark.parametrize(("data", "lines"), [
    (b"uno\ndos\n", [b"uno", b"dos"]),
    (b"uno\r\ndos\r\n", [b"uno", b"dos"]),  # Windows
    (b"uno\rdos\rtres", [b"uno", b"dos", b"tres"]),  # old Mac, CR only: read as one line
    (b"a\rb\nc\n", [b"a\rb", b"c"]),  # a \r inside a line of a \n file stays text
    (b"", []), (b"\n\n", [b"", b""]), (b"last", [b"last"]),
])
def test_line_endings(data, lines):
    assert list(raw_lines(io.BytesIO(data), "f")) == lines
    assert list(raw_lines(io.StringIO(data.decode(), newline=""), "f")) == [
        line.decode() for line in lines]


def test_cr_only_lines_across_blocks():
    data = b"\r".join(b"line %d" % i for i in range(20_000))  # well over one 64 KiB block
    assert len(list(raw_lines(io.BytesIO(data), "f"))) == 20_000


def test_an_endless_line_stops_at_the_limit_in_one_error():
    endless = Endless()
    with pytest.raises(LineTooLong) as raised:
        list(raw_lines(endless, "/dev/zero", limit=200_000))
    assert str(raised.value).startswith("/dev/zero, line 1: longer than 200,000 characters with "
                                        "no line break")
    assert endless.read_so_far < 400_000  # it stopped reading


def test_a_long_line_in_the_middle_is_named_by_its_number():
    data = b"ok\nok\n" + b"x" * 5000 + b"\nok\n"
    with pytest.raises(LineTooLong, match="f, line 3: longer than 1,000 characters"):
        list(raw_lines(io.BytesIO(data), "f", limit=1000))


def test_corpus_and_sentence_readers_read_cr_only_files(tmp_path):
    """CR-only line endings read 50 lines as one (with only a truncation note)."""
    tsv = tmp_path / "old-mac.tsv"
    tsv.write_bytes(b"".join(b"uno %d\tone %d\r" % (i, i) for i in range(50)))
    assert len(read_tsv(tsv).pairs) == 50
    sentences = tmp_path / "old-mac.txt"
    sentences.write_bytes(b"\r".join(b"uno %d" % i for i in range(50)))
    assert read_lines(sentences) == [f"uno {i}" for i in range(50)]
    assert len(input_lines(str(sentences))) == 50


def test_a_corpus_line_past_the_limit_is_a_corpus_error(tmp_path, monkeypatch):
    import keras_nmt.workshop.corpora.raw_lines as module  # noqa: PLC0415

    monkeypatch.setattr(module, "MAX_LINE_CHARS", 100)
    monkeypatch.setattr(module.raw_lines, "__defaults__", (100,))
    path = tmp_path / "big.tsv"
    path.write_bytes(b"a\tb\n" + b"c" * 1000 + b"\td\n")
    with pytest.raises(CorpusError, match=f"{path}, line 2: longer than 100 characters"):
        read_tsv(path)
