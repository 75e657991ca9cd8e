"""Nothing of the user's replaced or deleted: every output written by what it is, every folder
made or replaced keeping what we did not write (issue cases run as a user would, on the tiny
Marian fixture imported as a run)."""

import gzip
import json
import os
import random
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from keras_nmt.workshop.cli import main as cli_main
from keras_nmt.workshop.owned_folder import MANIFEST_FILE, folder_lock
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


def test_attention_plots_are_written_as_every_output_and_checked_before_translating(
        run, tmp_path, capsys):
    """The plots were written by Matplotlib itself: a plot's path that is a folder failed after
    the whole translation, without the flag; a link to a file is kept (its file replaced)."""
    plots = tmp_path / "plots"
    (plots / "attention_0002.png").mkdir(parents=True)
    assert cli_main(["translate", str(run), *SENTENCES, "--attention-plot", str(plots)]) == 1
    assert one_error_line(capsys) == (
        f"error: --attention-plot {plots}: {plots / 'attention_0002.png'} is a folder: an "
        "output is written to a file, a pipe or a character device")
    (plots / "attention_0002.png").rmdir()
    mine = tmp_path / "mine.png"
    mine.write_bytes(b"old")
    (plots / "attention_0001.png").symlink_to(mine)
    assert cli_main(["translate", str(run), *SENTENCES, "--attention-plot", str(plots)]) == 0
    assert (plots / "attention_0001.png").is_symlink()
    assert mine.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (plots / "attention_0002.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert sorted(p.name for p in plots.iterdir()) == ["attention_0001.png",
                                                       "attention_0002.png"]


def test_evaluate_test_size_holds_only_the_sentences_it_scores(run, tmp_path, capsys,
                                                                 monkeypatch):
    """`evaluate --test-size N` read the whole test file into memory to score N sentences."""
    from keras_nmt.workshop.corpora import corpus as corpus_module  # noqa: PLC0415

    lines = [f"hola {i}\thello {i}" for i in range(3000)]
    lines.append("hola 0\thi")  # another reference of the first sentence, at the very end
    data = tmp_path / "test.tsv"
    data.write_text("\n".join(lines) + "\n")
    held, load_corpus = [], corpus_module.load_corpus

    def counted(*args, **kwargs):
        corpus = load_corpus(*args, **kwargs)
        held.append(len(corpus.pairs))
        return corpus

    monkeypatch.setattr(corpus_module, "load_corpus", counted)
    output = tmp_path / "hypotheses.txt"
    scores = cli_main(["evaluate", str(run), "--data", str(data), "--test-size", "2",
                       "--accept-data", "--output", str(output)])
    assert scores["sentences"] == 2 and "nrefs:var" in scores["bleu_signature"]  # 2 and 1 refs
    assert held == [3]  # hola 0 (both references) and hola 1: not the file's 3,001 pairs
    assert len(output.read_text().splitlines()) == 2


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


def test_a_training_into_a_folder_being_imported_is_refused_in_one_line(tmp_path, capsys):
    """`train` kept its own lock (train.lock in the folder) and did not see an import's: a
    training started on the folder an import was writing, whose --force end would then have
    replaced the training's files. One lock for a folder, whoever writes it."""
    folder = tmp_path / "x93"
    with folder_lock(folder, "--output-dir"):  # an import at work
        assert cli_main(["train", "--data", "dates", "--train-size", "32", "--epochs", "1",
                         "--output-dir", str(folder)]) == 1
        line = one_error_line(capsys)
    assert line == (f"error: {folder} is being written by another keras-nmt (PID {os.getpid()})"
                    "; wait for it to end, or choose another --output-dir")
    assert not folder.exists()


def test_an_import_into_a_folder_being_trained_is_refused_in_one_line(tmp_path, capsys):
    """The other way round: the training's lock is the one an import takes."""
    from keras_nmt.workshop.run.run_lifecycle import lock_run_folder  # noqa: PLC0415

    folder = tmp_path / "run"
    with lock_run_folder(folder):  # a training at work (its folder made, still empty)
        assert cli_main(["import", str(MARIAN), "--output-dir", str(folder), "--force"]) == 1
        line = one_error_line(capsys)
    assert line.startswith(f"error: {folder} is being written by another keras-nmt")
    assert not folder.exists()


def test_two_exports_of_one_version_one_wins_and_force_keeps_the_users_files(run, tmp_path,
                                                                             capsys):
    """The SavedModel export made its version folder without the folder writer's lock and
    manifest: a second exporter of the version worked to its end before being refused, and no
    --force replaced an export keeping a user's notes.txt."""
    out = tmp_path / "exports"
    version = out / "opus" / "1"
    (out / "opus").mkdir(parents=True)
    with folder_lock(version, "--version"):  # another export of version 1 at work
        assert cli_main(["export", str(run), "--output-dir", str(out), "--version", "1",
                         "--max-beam-size", "1"]) == 1
        line = one_error_line(capsys)
    assert line == (f"error: {version} is being written by another keras-nmt (PID "
                    f"{os.getpid()}); wait for it to end, or choose another --version")
    version.mkdir()  # an export written before manifests, and the user's notes beside it
    (version / "saved_model.pb").write_bytes(b"old")
    (version / "notes.txt").write_text("mine\n")
    assert cli_main(["export", str(run), "--output-dir", str(out), "--version", "1",
                     "--max-beam-size", "1"]) == 1
    assert "already exists (use --force to replace it)" in one_error_line(capsys)
    assert cli_main(["export", str(run), "--output-dir", str(out), "--version", "1",
                     "--max-beam-size", "1", "--force"]) == 0
    assert (version / "notes.txt").read_text() == "mine\n"
    assert (version / "saved_model.pb").read_bytes() != b"old"
    assert (version / MANIFEST_FILE).is_file()
    assert sorted(p.name for p in (out / "opus").iterdir()) == ["1"]


# ------------------------------------------------------------------------------------------------
# Fingerprints that bind: a model and its tokenizers, a Marian vocabulary and its pieces
# ------------------------------------------------------------------------------------------------
def test_a_tokenizer_file_of_another_model_is_named(run, tmp_path, capsys):
    """The other side's tokenizer files under the source tokenizer's name: same sizes, each
    file whole (its own checksums pass); the error names a file, not only the folder."""
    copy = shutil.copytree(run, tmp_path / "run")
    source, target = copy / "tokenizers" / "source", copy / "tokenizers" / "target"
    for name in ("config.json", "sentencepiece.model", "vocab.txt"):
        shutil.copyfile(target / name, source / name)
    assert cli_main(["translate", str(copy), "hola"]) == 1
    line = one_error_line(capsys)
    assert line.startswith(f"error: {source / 'config.json'} is not the file of the source "
                           f"tokenizer this model was trained with (2 files of {source} differ "
                           f"from the fingerprints in {copy / 'provenance.json'}): its ids")


def test_tokenizers_and_record_of_another_model_are_refused_by_the_weights(run, tmp_path,
                                                                           capsys):
    """`tokenizers/` copied together with `provenance.json` from another run (of the same
    sizes) passed every check: the record now binds the model's weights too."""
    from keras_nmt.workshop.run.run_folder import RunFolder  # noqa: PLC0415

    copy = shutil.copytree(run, tmp_path / "run")
    other = RunFolder.load(copy).model  # another model of these tokenizers: other weights
    other.weights[0].assign(other.weights[0].numpy() + 0.5)
    other.save(copy / "model.keras")
    assert cli_main(["translate", str(copy), "hola"]) == 1
    assert one_error_line(capsys) == (
        f"error: {copy / 'model.keras'} is not the model {copy / 'provenance.json'} records "
        "(its weights' fingerprint differs): the tokenizers and the record beside it are "
        "another model's. Put the model's own files back together, or train or import it again")


def another_models_weights(run, folder):
    """A copy of `run` in `folder` whose `model.keras` holds other weights than its record's
    (tokenizers and `provenance.json` copied from another model of the same sizes)."""
    from keras_nmt.workshop.run.run_folder import RunFolder  # noqa: PLC0415

    copy = shutil.copytree(run, folder)
    other = RunFolder.load(copy).model
    other.weights[0].assign(other.weights[0].numpy() + 0.5)
    other.save(copy / "model.keras")
    return copy


def test_init_from_checks_the_record_of_the_run_it_starts_from(run, tmp_path, capsys):
    """`train --init-from RUN` loaded RUN's weights without the checks translate, evaluate and
    export make on opening it: another model's weights beside RUN's tokenizers and record were
    fine-tuned without a word."""
    start = another_models_weights(run, tmp_path / "start")
    data = tmp_path / "train.tsv"
    data.write_text("".join(f"{s}\t{s}\n" for s in SENTENCES * 10), encoding="utf-8")
    tuned = tmp_path / "tuned"
    assert cli_main(["train", "--init-from", str(start), "--data", str(data), "--accept-data",
                     "--epochs", "1", "--verbose", "0", "--samples", "0",
                     "--output-dir", str(tuned)]) == 1
    assert one_error_line(capsys) == (
        f"error: {start / 'model.keras'} is not the model {start / 'provenance.json'} records "
        "(its weights' fingerprint differs): the tokenizers and the record beside it are "
        "another model's. Put the model's own files back together, or train or import it again")
    assert not tuned.exists()


def test_a_model_without_a_record_is_refused_with_tokenizers_of_other_sizes(tmp_path, capsys):
    """A run without provenance.json (older) bound nothing: tokenizers of another size were
    taken, and translated into nonsense or failed deep in TensorFlow."""
    from tests.export.helpers import make_run_folder  # noqa: PLC0415

    run = make_run_folder(tmp_path / "old", "lstm", record=False)
    tokenizers = run / "tokenizers"
    shutil.rmtree(tokenizers / "target")
    shutil.copytree(tokenizers / "source", tokenizers / "target")  # the source's: other size
    assert cli_main(["translate", str(run), "12/04/1999"]) == 1
    line = one_error_line(capsys)
    assert line.startswith(f"error: {tokenizers / 'target'} has ") and (
        f"tokens, but the model in {run / 'model.keras'} reads " in line)


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


# ------------------------------------------------------------------------------------------------
# The environment and unclear errors: one line naming the file or flag
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("backend", ["jax", "torch"])
def test_another_keras_backend_in_the_environment_is_named_in_one_line(run, backend):
    """`KERAS_BACKEND=jax` (or torch) gave 60-83 lines of traceback on every command."""
    env = {name: value for name, value in os.environ.items() if not name.startswith("TF_")}
    done = subprocess.run([sys.executable, "-m", "keras_nmt", "translate", str(run), "hola"],
                          env={**env, "KERAS_BACKEND": backend}, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    warning, totals = done.stderr.strip().splitlines()  # the line, then translate's totals
    assert warning == (f"warning: KERAS_BACKEND={backend} in the environment: this command "
                       "runs on TensorFlow (its tokenizers and exports are TensorFlow's), so it "
                       "uses KERAS_BACKEND=tensorflow")
    assert totals.startswith("1 sentence in ")
    assert len(done.stdout.splitlines()) == 1


def test_benchmark_of_a_missing_run_is_one_line(tmp_path, capsys):
    """`benchmark --only decode --run missing` printed a traceback."""
    missing = tmp_path / "missing"
    assert cli_main(["benchmark", "--only", "decode", "--run", str(missing)]) == 1
    assert one_error_line(capsys) == (f"error: --run {missing} does not exist: give a finished "
                                      "run folder (keras-nmt train --output-dir DIR)")


def test_weights_that_are_no_weights_file_name_the_flag_and_file(run, tmp_path):
    from keras_nmt.workshop.translators.open_translator import open_translator  # noqa: PLC0415

    junk = tmp_path / "junk.h5"
    junk.write_text("not HDF5\n")
    with pytest.raises(ValueError, match=f"--weights {junk} is not a Keras weights file"):
        open_translator(run, weights=junk)


def test_a_cut_gz_input_is_named(run, tmp_path, capsys):
    """A cut `.gz` input named neither the file nor the flag."""
    rng = random.Random(0)
    text = "".join(f"hola {rng.random()}\n" for _ in range(3000)).encode()
    data = gzip.compress(text)
    cut = tmp_path / "in.txt.gz"
    cut.write_bytes(data[: len(data) // 2])
    assert cli_main(["translate", str(run), "--input", str(cut)]) == 1
    assert one_error_line(capsys).startswith(f"error: {cut}: corrupt or truncated .gz file")


def test_an_endless_input_is_one_line_not_the_kernels_kill(run, capsys):
    """`translate --input /dev/zero` grew until killed."""
    assert cli_main(["translate", str(run), "--input", "/dev/zero"]) == 1
    assert one_error_line(capsys).startswith(
        "error: /dev/zero, line 1: longer than 1,048,576 characters with no line break")


def test_python_api_values_of_the_wrong_type_are_refused_at_once(run, tmp_path):
    """`TrainConfig(epochs=2.5)` failed deep in task.py; `export_translator(version=1.5)`
    exported version 1."""
    from keras_nmt.workshop.run.train_config import TrainConfig  # noqa: PLC0415
    from keras_nmt.workshop.translators.export_translator import export_translator  # noqa: PLC0415

    with pytest.raises(ValueError, match=r"^--epochs 2.5: is not an integer$"):
        TrainConfig(epochs=2.5)
    with pytest.raises(ValueError, match=r"version must be a positive integer, got 1.5"):
        export_translator(run, base_dir=tmp_path, version=1.5)
    assert not list(tmp_path.iterdir())


def test_a_non_utf8_output_dir_is_refused_naming_the_flag(capsys):
    """A Latin-1 `--output-dir` gave "Error converting unicode string..."."""
    with pytest.raises(SystemExit) as raised:
        cli_main(["export", "runs/x", "--output-dir", os.fsdecode(b"caf\xe9")])
    assert raised.value.code == 2
    assert "--output-dir caf\ufffd: not UTF-8 (a Latin-1" in capsys.readouterr().err


def test_a_local_file_named_like_a_built_in_data_set_is_not_shadowed(tmp_path, monkeypatch,
                                                                      capsys):
    monkeypatch.chdir(tmp_path)
    Path("dates").write_text("uno\tone\n")
    assert cli_main(["train", "--data", "dates", "--output-dir", "run", "--epochs", "1"]) == 1
    line = one_error_line(capsys)
    assert line.startswith("error: --data dates: both the built-in data set 'dates' and the "
                           f"file {tmp_path / 'dates'}; write ./dates for the file")
    assert sorted(os.listdir(tmp_path)) == ["dates"]
