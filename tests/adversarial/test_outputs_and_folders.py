"""Nothing of the user's replaced or deleted: every output written by what it is, every folder
made or replaced keeping what we did not write (issue cases run as a user would, on the tiny
Marian fixture imported as a run)."""

import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from keras_nmt.cli import main as cli_main
from keras_nmt.owned_folder import MANIFEST_FILE, folder_lock
from tests.error_output import one_error_line

ROOT = Path(__file__).resolve().parents[2]
MARIAN = ROOT / "tests" / "pretrained" / "fixtures" / "hf"
SENTENCES = ["hola", "el gato"]


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    folder = tmp_path_factory.mktemp("outputs") / "opus"
    assert cli_main(["import", str(MARIAN), "--output-dir", str(folder)]) == 0
    return folder


def translate(run, *flags, stdin=None):
    """`keras-nmt translate` in its own process (stdin and stdout are the point)."""
    return subprocess.run([sys.executable, "-m", "keras_nmt", "translate", str(run), *flags],
                          stdin=stdin, capture_output=True, timeout=300)


def test_translate_output_dev_stdout_in_a_pipe_reaches_the_pipe(run, tmp_path):
    """`--output /dev/stdout | wc -l` counted 0 lines, exit 0."""
    (tmp_path / "in.txt").write_text("\n".join(SENTENCES) + "\n")
    done = translate(run, "--input", str(tmp_path / "in.txt"), "--output", "/dev/stdout")
    assert done.returncode == 0, done.stderr
    assert len(done.stdout.decode().splitlines()) == 2
    assert not Path("/dev/stdout").is_file() or Path("/dev/stdout").is_symlink()


def test_translate_output_the_file_on_stdin_is_refused(run, tmp_path):
    """`translate --output a6.txt < a6.txt` replaced the input with its translations, exit 0."""
    source = tmp_path / "a6.txt"
    source.write_text("\n".join(SENTENCES) + "\n")
    with open(source) as stdin:
        done = translate(run, "--output", str(source), stdin=stdin)
    assert done.returncode == 1
    err = done.stderr.decode()
    assert err.strip() == (f"error: --output {source} is stdin: writing it would destroy the "
                           "input; choose another --output file")
    assert source.read_text() == "\n".join(SENTENCES) + "\n"


def test_outputs_keep_their_mode_and_links_and_devices(run, tmp_path, capsys):
    """A 0600 file became 0644, a link to a file became a file, a character device became a
    file (as root), a FIFO with a reader was replaced and the reader blocked forever."""
    kept = tmp_path / "private.txt"
    kept.write_text("old\n")
    os.chmod(kept, 0o600)
    link = tmp_path / "link.txt"
    link.symlink_to(kept)
    assert cli_main(["translate", str(run), *SENTENCES, "--output", str(link)]) == 0
    assert link.is_symlink() and stat.S_IMODE(kept.stat().st_mode) == 0o600
    assert len(kept.read_text().splitlines()) == 2
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    reader = subprocess.Popen(["cat", str(fifo)], stdout=subprocess.PIPE)
    assert cli_main(["translate", str(run), *SENTENCES, "--output", str(fifo)]) == 0
    assert len(reader.communicate(timeout=60)[0].splitlines()) == 2
    assert stat.S_ISFIFO(fifo.lstat().st_mode)
    assert cli_main(["translate", str(run), *SENTENCES, "--output", "/dev/null"]) == 0
    assert stat.S_ISCHR(os.lstat("/dev/null").st_mode)


def test_an_output_that_is_a_socket_is_refused_before_the_work(run, tmp_path, capsys):
    import socket  # noqa: PLC0415  (only this test binds one)

    path = tmp_path / "sock"
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(path))
    for command in (["translate", str(run), "hola"], ["evaluate", str(run), "--data",
                                                      str(tmp_path / "missing.tsv")]):
        assert cli_main([*command, "--output", str(path)]) == 1
        assert f"--output {path} is a socket" in one_error_line(capsys)
    server.close()


def test_attention_plot_onto_a_file_is_refused_before_translating(run, tmp_path, capsys):
    """`--attention-plot EXISTING` was refused after the whole translation, without the flag."""
    existing = tmp_path / "plots"
    existing.write_text("mine\n")
    assert cli_main(["translate", str(run), *SENTENCES, "--attention-plot",
                     str(existing)]) == 1
    line = one_error_line(capsys)
    assert line.startswith(f"error: --attention-plot {existing} is a file, not a folder")
    assert existing.read_text() == "mine\n"


def test_import_force_keeps_the_users_files(run, tmp_path, capsys):
    """`import --force` onto an earlier import deleted the user's notes.txt and results/."""
    folder = shutil.copytree(run, tmp_path / "opus")
    (folder / "notes.txt").write_text("mine\n")
    (folder / "results").mkdir()
    (folder / "results" / "bleu.txt").write_text("mine\n")
    assert cli_main(["import", str(MARIAN), "--output-dir", str(folder), "--force"]) == 0
    assert (folder / "notes.txt").read_text() == "mine\n"
    assert (folder / "results" / "bleu.txt").read_text() == "mine\n"
    assert (folder / "model.keras").is_file() and (folder / MANIFEST_FILE).is_file()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


def test_a_second_writer_of_one_folder_is_refused_in_one_line(tmp_path, capsys):
    """Two imports into one new folder both printed "imported ... into x93"; one was lost."""
    folder = tmp_path / "x93"
    with folder_lock(folder, "--output-dir"):  # another import at work
        assert cli_main(["import", str(MARIAN), "--output-dir", str(folder)]) == 1
        line = one_error_line(capsys)
    assert line == (f"error: {folder} is being written by another keras-nmt (PID {os.getpid()})"
                    "; wait for it to end, or choose another --output-dir")
    assert not folder.exists()


# ------------------------------------------------------------------------------------------------
# Fingerprints that bind: a model and its tokenizers, a Marian vocabulary and its pieces
# ------------------------------------------------------------------------------------------------
def test_a_tokenizer_file_of_another_model_is_named(run, tmp_path, capsys):
    """The other side's SentencePiece model under the source tokenizer's name: same sizes, each
    file whole; the error names the file, not only the folder."""
    copy = shutil.copytree(run, tmp_path / "run")
    source, target = copy / "tokenizers" / "source", copy / "tokenizers" / "target"
    [model] = [p.name for p in source.iterdir() if p.name != "config.json"]
    shutil.copyfile(target / model, source / model)
    assert cli_main(["translate", str(copy), "hola"]) == 1
    line = one_error_line(capsys)
    assert line.startswith(f"error: {source / model} is not the file of the source tokenizer "
                           "this model was trained with")


def marian_copy(tmp_path):
    return shutil.copytree(MARIAN, tmp_path / "marian")


def test_import_refuses_a_vocabulary_with_a_renamed_piece(tmp_path, capsys):
    """A vocab.json with one piece renamed (same size) imported cleanly; 28 of 240 fixture
    sentences then translated differently (`la` -> `<unk>`)."""
    marian = marian_copy(tmp_path)
    vocabulary = json.loads((marian / "vocab.json").read_text(encoding="utf-8"))
    vocabulary["la-renamed"] = vocabulary.pop("la")
    (marian / "vocab.json").write_text(json.dumps(vocabulary), encoding="utf-8")
    assert cli_main(["import", str(marian), "--output-dir", str(tmp_path / "out")]) == 1
    line = one_error_line(capsys)
    assert line == (f"error: {marian / 'vocab.json'} does not match {marian / 'source.spm'}: "
                    "1 piece of the SentencePiece model not in the vocabulary (the first: 'la'); "
                    "the files belong to different models")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["marian"]


def test_import_refuses_a_vocabulary_piece_in_no_sentencepiece_model(tmp_path, capsys):
    """The reverse: a piece of vocab.json that neither SentencePiece model makes (here in the
    place of a language token, so every size still agrees) would be a row never used."""
    marian = marian_copy(tmp_path)
    vocabulary = json.loads((marian / "vocab.json").read_text(encoding="utf-8"))
    vocabulary["▁nowhere"] = vocabulary.pop(">>eng<<")
    (marian / "vocab.json").write_text(json.dumps(vocabulary), encoding="utf-8")
    assert cli_main(["import", str(marian), "--output-dir", str(tmp_path / "out")]) == 1
    assert one_error_line(capsys) == (
        f"error: {marian / 'vocab.json'} does not match {marian / 'source.spm'} and "
        f"{marian / 'target.spm'}: 1 piece of the vocabulary in no SentencePiece model (the "
        "first: '▁nowhere'); the files belong to different models")


def test_import_of_a_cut_sentencepiece_model_is_one_line(tmp_path, capsys):
    """A truncated source.spm in `import` gave a traceback."""
    marian = marian_copy(tmp_path)
    data = (marian / "source.spm").read_bytes()
    (marian / "source.spm").write_bytes(data[: len(data) // 3])
    assert cli_main(["import", str(marian), "--output-dir", str(tmp_path / "out")]) == 1
    assert one_error_line(capsys) == (f"error: {marian / 'source.spm'}: not a SentencePiece "
                                      "model (cut short or damaged); copy the model's folder "
                                      "again")
