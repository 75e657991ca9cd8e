"""A full disk and signals end every command in one line, without a traceback: ENOSPC names the
path (rc 1), SIGINT exits 130, SIGTERM 143, and an interrupted training resumes."""

import contextlib
import errno
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import tensorflow as tf

from keras_nmt.workshop.atomic_file import temporary_pattern
from keras_nmt.workshop.cli import export as export_app
from keras_nmt.workshop.cli import main as cli_main
from keras_nmt.workshop.cli import translate as translate_app
from keras_nmt.workshop.cli.common import exit_status
from tests.error_output import one_error_line
from tests.fixed_precision import FLOAT32_FLAGS

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def run(untrained_models):
    return untrained_models["run"]


def full_disk(*args, **kwargs):
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))  # as write() reports it: no path


def test_translate_output_on_a_full_disk(run, tmp_path, monkeypatch, capsys):
    output = tmp_path / "out.txt"
    monkeypatch.setattr("keras_nmt.workshop.output_file.open", full_disk, raising=False)
    assert translate_app.main([str(run), "3rd of March 2021", "--output", str(output)]) == 1
    line = one_error_line(capsys)
    assert str(output) in line and "No space left on device" in line
    assert not output.exists()


@pytest.mark.parametrize("error", [
    OSError(errno.ENOSPC, os.strerror(errno.ENOSPC)),
    tf.errors.ResourceExhaustedError(None, None, "variables.data-00000-of-00001.tempstate; "
                                     "No space left on device"),
], ids=["OSError", "ResourceExhaustedError"])
def test_export_on_a_full_disk(error, run, tmp_path, monkeypatch, capsys):
    def fail(*args, **kwargs):
        raise error

    monkeypatch.setattr(tf.saved_model, "save", fail)
    output = tmp_path / "saved"
    # Beam size 1: the error comes from `save`, after tracing; fewer beam functions to trace.
    assert export_app.main([str(run), "--output-dir", str(output), "--name", "m",
                            "--max-beam-size", "1"]) == 1
    line = one_error_line(capsys)
    assert str(output) in line and "No space left on device" in line
    assert not list((output / "m").glob("*"))  # the partial folder removed


def start(*argv):
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TF_CPP_MIN_LOG_LEVEL": "3"}
    # A suite started in the background (`make test &`, nohup) has SIGINT ignored, and a child
    # inherits that: Python would then not raise KeyboardInterrupt. The command as a user runs it.
    return subprocess.Popen([sys.executable, "-m", "keras_nmt", *argv], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


def signal_when(process, ready, signum, timeout=240):
    """Sends `signum` once `ready()` holds (the command is at work), returns (rc, stderr)."""
    deadline = time.monotonic() + timeout
    while not ready() and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.2)
    assert process.poll() is None, process.communicate()[1][-2000:]
    process.send_signal(signum)
    _, err = process.communicate(timeout=120)
    return process.returncode, err


def test_sigint_ends_translate_in_one_line(run, tmp_path):
    big = tmp_path / "big.txt"
    # About 15 CPU seconds of translating (some 6,400 sentences per CPU second here), of which
    # the signal comes after the first chunk; more lines would only prepare longer (reading and
    # checking 2,000,000 lines took 10 CPU seconds).
    big.write_text("3rd of March 2021\n" * 100_000, encoding="utf-8")
    output = tmp_path / "out.txt"
    process = start("translate", str(run), "--input", str(big), "--output", str(output),
                    "--batch-size", "64")
    # Translating, batches queued: the first chunk (`CHUNK_LINES`) is in the output's hidden
    # temporary, the rest of the input to come.
    rc, err = signal_when(process, lambda: first_chunk_written(tmp_path, "out.txt"),
                          signal.SIGINT)
    assert rc == 130, err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert not output.exists()
    assert not list(tmp_path.glob(temporary_pattern("out.txt")))  # nor its temporary


def first_chunk_written(folder, name):
    """Whether a temporary of output `name` in `folder` holds a line (a chunk written)."""
    for temporary in folder.glob(temporary_pattern(name)):
        with contextlib.suppress(FileNotFoundError):
            if temporary.stat().st_size > 0:
                return True
    return False


@pytest.mark.slow
def test_sigterm_ends_train_in_one_line_and_the_run_resumes(tmp_path, capsys):
    output = tmp_path / "run"
    # 125 batches an epoch, so that the signal finds it training (225 batches, some 3 CPU
    # seconds, are left after the first backup; the resumed run trains them); a small
    # validation (the defaults score 1,000 pairs and translate 500 after each epoch, for nothing
    # asserted here).
    argv = ["train", "--output-dir", str(output), "--epochs", "2", "--units", "8",
            "--embedding-dim", "8", "--train-size", "2000", "--batch-size", "16",
            "--backup-every", "25", "--valid-size", "16", "--validation-sentences", "8",
            "--samples", "0", *FLOAT32_FLAGS]
    process = start(*argv)
    # Once the first backup is written whole (the folder exists a moment before it).
    rc, err = signal_when(process, lambda: (output / "backup" / "state.npz").exists(),
                          signal.SIGTERM)
    assert rc == 143, err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    # A position is "epoch 2, batch 15" or "the end of epoch 1" (`position_text`).
    position = r"(epoch \d, batch \d+|the end of epoch \d)"
    said = re.fullmatch(rf"terminated \(SIGTERM\): at {position}; the last backup is from "
                        rf"{position}; re-run the same command to resume from it", err.strip())
    assert said, err
    # The same command again, in this process: resuming reads the folder, not the process.
    assert exit_status(cli_main(argv)) == 0  # the status `keras-nmt` exits with
    out = capsys.readouterr().out
    assert f"resuming from {said[2]}" in out
    assert f"stopped: all 2 epochs done; the model is {output / 'model.keras'}" in out
    assert (output / "model.keras").exists()
