"""`keras-nmt translate` reads, translates and writes its input a chunk of lines at a time
(`CHUNK_LINES`): memory holds one chunk, not the input, and the output is the one a single
pass over the whole input gives, byte for byte (numbering, samples and n-best lists by each
sentence's place in the input)."""

import types

import pytest

from keras_nmt.inference.batch_translator import BatchTranslator
from keras_nmt.workshop.cli import translate as translate_app
from keras_nmt.workshop.corpora.builtin import builtin_pairs

WHOLE = 10**6  # lines per chunk: the whole input in one


@pytest.fixture(scope="module")
def run(untrained_models, each_model_opened_once):
    """The untrained lstm's run folder, opened once for the module's commands."""
    return untrained_models["run"]


def sentences():
    """23 lines of mixed lengths, an empty one among them."""
    lines = [source for source, _ in builtin_pairs("dates", "test")[:22]]
    return lines[:9] + [""] + lines[9:]


class OneLineAtATime:
    """A binary stdin that gives one line per `read` and counts the lines given."""

    def __init__(self, data):
        self.lines, self.given = data.splitlines(keepends=True), 0

    def read(self, size=-1):
        if self.given == len(self.lines):
            return b""
        self.given += 1
        return self.lines[self.given - 1]


@pytest.mark.parametrize("flags", [[], ["--beam-size", "3", "--n-best", "2"],
                                   ["--strategy", "sample", "--seed", "3", "--batch-size", "4"]],
                         ids=["greedy", "n-best", "sample"])
def test_an_input_of_several_chunks_gives_the_whole_files_output(flags, run, tmp_path,
                                                                  monkeypatch, capsys):
    path = tmp_path / "in.txt"
    path.write_text("".join(f"{line}\n" for line in sentences()), encoding="utf-8")
    written = {}
    for size in (WHOLE, 5):  # 23 lines: one chunk, or five (the last of 3)
        monkeypatch.setattr(translate_app, "CHUNK_LINES", size)
        output = tmp_path / f"out-{size}.txt"
        assert translate_app.main([str(run), "--input", str(path), "--output", str(output),
                                   *flags]) == 0
        written[size] = output.read_bytes()
    assert written[5] == written[WHOLE]
    capsys.readouterr()
    assert translate_app.main([str(run), "--input", str(path), *flags]) == 0  # stdout, chunked
    assert capsys.readouterr().out.encode() == written[WHOLE]
    lines = written[5].decode().splitlines()
    assert len(lines) == 23 * (2 if "--n-best" in flags else 1)
    if "--n-best" in flags:  # numbered by the sentence's place in the input, not the chunk's
        assert [line.split("\t")[0] for line in lines[-2:]] == ["23", "23"]


def test_the_input_is_read_a_chunk_at_a_time(run, monkeypatch, capsys):
    """The whole input was read, then translated: `translate --input` of a large file held it
    all (bounded per line, not in total)."""
    stdin = OneLineAtATime("".join(f"{line}\n" for line in sentences()).encode())
    monkeypatch.setattr("sys.stdin", types.SimpleNamespace(buffer=stdin, isatty=lambda: False))
    monkeypatch.setattr(translate_app, "CHUNK_LINES", 5, raising=False)
    calls, translate_batch = [], BatchTranslator.translate_batch

    def counted(self, texts, *args, **kwargs):
        calls.append((len(texts), stdin.given))
        return translate_batch(self, texts, *args, **kwargs)

    monkeypatch.setattr(BatchTranslator, "translate_batch", counted)
    assert translate_app.main([str(run)]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 23
    assert [size for size, _ in calls] == [5, 5, 5, 5, 3]
    # Each chunk is translated once it is read (and the next line looked at), not after all.
    assert [given for _, given in calls] == [5, 10, 15, 20, 23]


def test_a_bad_line_in_a_later_chunk_keeps_the_existing_output(run, tmp_path, monkeypatch,
                                                               capsys):
    """The first chunk is checked before the model loads; a later one only when the
    translation reaches it, with earlier chunks already written: the output file the user had
    is still replaced whole or not at all, and nothing hidden is left beside it."""
    path = tmp_path / "in.txt"
    path.write_text("".join(f"{line}\n" for line in sentences()[:7]) + "x" * (2 << 20) + "\n",
                    encoding="utf-8")
    output = tmp_path / "out.txt"
    output.write_text("the user's\n", encoding="utf-8")
    monkeypatch.setattr(translate_app, "CHUNK_LINES", 5)
    capsys.readouterr()
    assert translate_app.main([str(run), "--input", str(path), "--output", str(output)]) == 1
    assert f"{path}, line 8: longer than" in capsys.readouterr().err
    assert output.read_text(encoding="utf-8") == "the user's\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.txt", "out.txt"]
