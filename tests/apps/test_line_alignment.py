"""Line N of an output is the translation of line N of the input: lines end at `\\n` only, so a
U+2028 inside a sentence does not split it (translate from a file and stdin, evaluate's
hypotheses, spell correct); and a tab-separated file is not read as one sentence per line."""

import codecs
import gzip
import io
import lzma
import zipfile

import pytest

from keras_nmt.workshop.benchmarks import serve_load
from keras_nmt.workshop.cli import evaluate as evaluate_app
from keras_nmt.workshop.cli import spell as spell_app
from keras_nmt.workshop.cli import translate as translate_app
from keras_nmt.workshop.lines import lines_not_utf8, one_sentence_per_line, read_lines, text_lines
from tests.error_output import one_error_line

INPUT = b"3rd of March 2021\n4th of July\xe2\x80\xa81999\n25.12.2001\n"


@pytest.fixture(scope="module")
def run(untrained_models, each_model_opened_once):
    """The untrained lstm's run folder, opened once for the module's commands."""
    return untrained_models["run"]


@pytest.fixture
def input_file(tmp_path):
    path = tmp_path / "in.txt"
    path.write_bytes(INPUT)
    return path


def test_translate_file_gives_one_line_per_input_line(run, input_file, tmp_path, capsys):
    output = tmp_path / "out.txt"
    translate_app.main([str(run), "--input", str(input_file), "--output", str(output)])
    assert len(output.read_bytes().split(b"\n")) == 3 + 1  # three lines, each ended by \n


def test_translate_stdin_gives_one_line_per_input_line(run, monkeypatch, capsys):
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(INPUT), encoding="utf-8"))
    translate_app.main([str(run)])
    out = capsys.readouterr().out
    assert out.count("\n") == 3, out


def test_evaluate_writes_one_hypothesis_per_source(run, tmp_path, capsys):
    data = tmp_path / "test.tsv"
    data.write_bytes(b"3rd of March 2021\t2021-03-03\n4th of July\xe2\x80\xa81999\t1999-07-04\n"
                     b"25.12.2001\t2001-12-25\n")
    hypotheses = tmp_path / "hypotheses.txt"
    scores = evaluate_app.main([str(run), "--data", str(data), "--output", str(hypotheses)])
    assert scores["sentences"] == 3
    assert hypotheses.read_bytes().count(b"\n") == 3


def test_spell_correct_gives_one_line_per_input_line(run, input_file, capsys):
    corrected = spell_app.main(["correct", str(run), "--input", str(input_file)])
    assert len(corrected) == 3
    assert capsys.readouterr().out.count("\n") == 3


TSV = b"3rd of March 2021\t2021-03-03\n4th of July 1999\t1999-07-04\n"


def test_a_few_stray_tabs_are_text_but_a_tab_separated_file_is_refused():
    assert one_sentence_per_line(["a\tb", "c", "d"], "in.txt") == ["a\tb", "c", "d"]
    with pytest.raises(ValueError, match=r"^in.txt line 2 has 3 tab-separated columns"):
        one_sentence_per_line(["", "a\tb\tc", "d\te"], "in.txt")


@pytest.mark.parametrize("command", ["translate", "translate-stdin", "spell", "serve_load"])
def test_a_tab_separated_file_read_as_sentences_is_refused_before_the_model_loads(
        command, tmp_path, monkeypatch, capsys):
    # It translated each whole line, target column included, without a word. The model path
    # does not exist: the file is refused first.
    data = tmp_path / "test.tsv"
    data.write_bytes(TSV)
    model = str(tmp_path / "no-such-run")
    if command == "translate":
        assert translate_app.main([model, "--input", str(data)]) == 1
    elif command == "translate-stdin":
        monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(TSV), encoding="utf-8"))
        assert translate_app.main([model]) == 1
    elif command == "spell":
        assert spell_app.main(["correct", model, "--input", str(data)]) == 1
    else:
        with pytest.raises(SystemExit) as exit:
            serve_load.main([model, "--sentences", str(data)])
        assert exit.value.code == 1
    name = "stdin" if command == "translate-stdin" else str(data)
    assert one_error_line(capsys).startswith(f"error: {name} line 1 has 2 tab-separated columns")


@pytest.mark.parametrize("suffix", [".xz", ".gz", ".zip"])
def test_a_compressed_input_is_read_as_its_lines(suffix, run, tmp_path, capsys):
    # It was read as bytes: a compressed file's garbage was translated, line by line, without
    # a word. Now any suffix `--data` reads (`open_binary`) is read the same way.
    plain, packed = tmp_path / "in.txt", tmp_path / f"in.txt{suffix}"
    plain.write_bytes(INPUT)
    if suffix == ".zip":
        with zipfile.ZipFile(packed, "w") as archive:
            archive.writestr("in.txt", INPUT)
    else:
        packed.write_bytes({".xz": lzma, ".gz": gzip}[suffix].compress(INPUT))
    assert read_lines(packed) == read_lines(plain) == INPUT.decode().split("\n")[:3]
    translate_app.main([str(run), "--input", str(packed)])
    from_packed = capsys.readouterr().out
    translate_app.main([str(run), "--input", str(plain)])
    assert from_packed == capsys.readouterr().out and from_packed.count("\n") == 3


@pytest.mark.parametrize("where", ["file", "stdin", "spell-stdin"])
def test_a_byte_order_mark_is_not_part_of_the_first_sentence(where, run, tmp_path, monkeypatch,
                                                             capsys):
    # A Windows editor's file opens with one: it was read into the first sentence and changed
    # its translation ("2032-03-15" instead of "2023-03-13" with a small dates model).
    marked = b"\xef\xbb\xbf" + INPUT
    assert text_lines(marked) == text_lines(INPUT) == text_lines(marked.decode())
    # Windows' "Unicode" (UTF-16 with its mark) read as UTF-8 gave lines of garbage.
    big_endian = codecs.BOM_UTF16_BE + INPUT.decode().encode("utf-16-be")
    assert text_lines(INPUT.decode().encode("utf-16")) == text_lines(INPUT)
    assert text_lines(big_endian) == text_lines(INPUT)
    if where == "file":
        path = tmp_path / "marked.txt"
        path.write_bytes(marked)
        translate_app.main([str(run), "--input", str(path)])
    else:
        monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(marked), encoding="utf-8"))
        if where == "spell-stdin":
            assert spell_app.main(["correct", str(run)]) == spell_app.main(
                ["correct", str(run), *text_lines(INPUT)])
            return
        translate_app.main([str(run)])
    with_mark = capsys.readouterr().out
    translate_app.main([str(run), *text_lines(INPUT)])
    assert with_mark == capsys.readouterr().out


@pytest.mark.parametrize("where", ["file", "stdin", "spell"])
def test_lines_that_are_not_utf8_are_translated_with_a_warning(where, run, tmp_path,
                                                               monkeypatch, capsys):
    # Spanish or French text saved as Latin-1 or Windows-1252: every accented letter is a byte
    # that is not UTF-8. It was read as U+FFFD, and translated so, without a word.
    latin1 = "3rd of March 2021\nle 4 août 1999\n25.12.2001\nil était là\n".encode("cp1252")
    assert lines_not_utf8(latin1) == [2, 4]
    assert lines_not_utf8(INPUT) == lines_not_utf8(INPUT.decode().encode("utf-16")) == []
    path = tmp_path / "latin1.txt"
    path.write_bytes(latin1)
    if where == "stdin":
        monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(latin1), encoding="utf-8"))
        name, command = "stdin", translate_app.main
        translate_app.main([str(run)])
    elif where == "spell":
        name, command = str(path), lambda argv: spell_app.main(["correct", *argv])
        corrected = command([str(run), "--input", str(path)])
    else:
        name, command = str(path), translate_app.main
        translate_app.main([str(run), "--input", str(path)])
    out, err = capsys.readouterr()
    assert [line for line in err.splitlines() if line.startswith("warning:")] == [
        f"warning: {name}: 2 lines not UTF-8 (the first: line 2); their bad bytes are read as "
        "U+FFFD (a Latin-1 or Windows-1252 file? convert it first, e.g. `iconv -f cp1252 -t "
        f"utf-8 {name if where != 'stdin' else 'FILE'}`)"]
    # Still one output line per input line, the others as they would be on their own.
    lines = corrected if where == "spell" else out.splitlines()
    assert len(lines) == 4
    alone = command([str(run), "3rd of March 2021", "25.12.2001"])
    alone = alone if where == "spell" else capsys.readouterr().out.splitlines()
    assert [lines[0], lines[2]] == alone


@pytest.mark.parametrize("command", ["translate", "spell"])
def test_a_dash_for_input_and_output_is_stdin_and_stdout(command, run, input_file, tmp_path,
                                                          monkeypatch, capsys):
    # `--output -` wrote the translations to a file named "-" here, and printed nothing.
    monkeypatch.chdir(tmp_path)
    main = translate_app.main if command == "translate" else (
        lambda argv: spell_app.main(["correct", *argv]))
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(INPUT), encoding="utf-8"))
    main([str(run), "--input", "-", "--output", "-"])
    dashed = capsys.readouterr().out
    main([str(run), "--input", str(input_file)])
    assert dashed == capsys.readouterr().out and dashed.count("\n") == 3
    assert not (tmp_path / "-").exists()
