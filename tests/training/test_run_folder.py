"""Re-using an --output folder: bad lines reported, other options refused, finished runs kept."""

import errno
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from keras_nmt.workshop.cli import train as train_app
from keras_nmt.workshop.run.run_lifecycle import differing_options
from tests.fixed_precision import FLOAT32_FLAGS

ROOT = Path(__file__).resolve().parents[2]
TINY = ["--units", "8", "--embedding-dim", "4", "--batch-size", "16", "--epochs", "1",
        "--validation-sentences", "4", "--samples", "0", "--verbose", "0", "--max-length", "12",
        *FLOAT32_FLAGS]


def test_differing_options_ignore_what_never_changes_the_weights():
    saved = {"tokenizer": "char", "verbose": 1, "epochs": 2, "units": 8}
    new = {"tokenizer": "word", "verbose": 2, "epochs": 5, "units": 8}
    assert differing_options(saved, new) == ["tokenizer (char in the folder, word now)"]


def test_reused_folder(tmp_path, capsys):
    lines = [f"{day} May\t{day} de mayo" for day in range(1, 31)]
    lines[4] = "a line without a tab"
    lines[7] = "x" * 40 + "\t" + "y" * 40  # longer than --max-length 12: dropped, counted
    data = tmp_path / "may.tsv"
    data.write_text("\n".join(lines) + "\n", encoding="utf-8")
    run = tmp_path / "run"
    command = [*TINY, "--data", str(data), "--valid", str(data), "--skip-bad-lines",
               "--max-bad-fraction", "0.1", "--output-dir", str(run)]
    assert train_app.main(command) is not None
    out = capsys.readouterr().out
    assert f"first skipped: {data}:5" in out
    assert "1 longer than 12 tokens filtered" in out
    model_time = (run / "model.keras").stat().st_mtime_ns

    # The same command again: finished, nothing is trained or written.
    assert train_app.main(command) is None
    assert "is finished" in capsys.readouterr().out
    assert (run / "model.keras").stat().st_mtime_ns == model_time

    # Other options: refused, naming them; the folder is untouched.
    assert train_app.main([*command, "--tokenizer", "word", "--units", "16"]) == 1
    err = capsys.readouterr().err
    assert "tokenizer (char in the folder, word now)" in err and "units (8" in err
    assert json.loads((run / "config.json").read_text())["tokenizer"] == "char"

    # --fresh starts again with the new options.
    assert train_app.main([*command, "--tokenizer", "word", "--fresh"]) is not None
    assert json.loads((run / "config.json").read_text())["tokenizer"] == "word"
    tokenizer = json.loads((run / "tokenizers" / "source" / "config.json").read_text())
    assert tokenizer["kind"] == "word"


def _may_data(tmp_path):
    data = tmp_path / "may.tsv"
    data.write_text("".join(f"{day} May\t{day} de mayo\n" for day in range(1, 31)),
                    encoding="utf-8")
    return ["--data", str(data), "--valid", str(data)]


def test_a_full_disk_while_writing_config_leaves_nothing_that_refuses_the_retry(
        tmp_path, capsys, monkeypatch):
    run = tmp_path / "run"
    command = [*TINY, *_may_data(tmp_path), "--output-dir", str(run)]
    write_text = Path.write_text

    def full_disk(path, text, *args, **kwargs):
        if path.name.startswith((".config.json", "config.json")) and path.parent == run:
            write_text(path, "")  # what a full disk leaves: the file, empty
            raise OSError(errno.ENOSPC, "No space left on device", str(path))
        return write_text(path, text, *args, **kwargs)

    monkeypatch.setattr(Path, "write_text", full_disk)
    assert train_app.main(command) == 1
    assert "No space left on device" in capsys.readouterr().err
    assert not run.exists()  # the new run undone, its folder too
    monkeypatch.setattr(Path, "write_text", write_text)
    assert train_app.main(command) is not None  # space freed: the same command trains
    assert json.loads((run / "config.json").read_text())["units"] == 8


def test_a_run_dropping_every_pair_leaves_nothing_that_refuses_the_corrected_command(
        tmp_path, capsys):
    run = tmp_path / "run"
    run.mkdir()
    (run / "notes.txt").write_text("mine\n")  # not the run's: kept
    command = [*TINY, *_may_data(tmp_path), "--output-dir", str(run)]
    assert train_app.main([*command, "--max-length", "3"]) == 1
    capsys.readouterr()
    assert sorted(path.name for path in run.iterdir()) == ["notes.txt"]
    assert not (tmp_path / ".run.lock").exists()  # the lock beside the folder, released
    assert train_app.main([*command, "--max-length", "30"]) is not None


def test_a_damaged_config_is_named_with_the_way_out(tmp_path, capsys):
    run = tmp_path / "run"
    run.mkdir()
    (run / "config.json").write_text("")
    assert train_app.main([*TINY, "--output-dir", str(run)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{run / 'config.json'} is damaged (empty)" in err
    assert "--fresh" in err


SLOW_RUN = ["--train-size", "64", "--valid-size", "8", "--units", "8", "--embedding-dim", "4",
            "--batch-size", "16", "--epochs", "100000", "--backup-every", "1",
            "--validation-sentences", "2", "--samples", "0", "--verbose", "0",
            *FLOAT32_FLAGS]


def _train_process(*arguments):
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TF_CPP_MIN_LOG_LEVEL": "2"}
    return subprocess.Popen([sys.executable, "apps/train.py", *arguments], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


@pytest.mark.slow
def test_a_second_training_into_a_locked_folder_is_refused_until_the_first_dies(tmp_path, capsys):
    run = tmp_path / "run"
    first = _train_process(*SLOW_RUN, "--output-dir", str(run))
    try:
        deadline = time.monotonic() + 300
        while not (run / "backup" / "state.npz").exists():  # training is under way
            assert first.poll() is None and time.monotonic() < deadline, first.communicate()
            time.sleep(0.2)
        # The second and third trainings run in this process (another process than the first,
        # all the lock tells apart), saving two TensorFlow start-ups.
        capsys.readouterr()
        assert train_app.main([*SLOW_RUN, "--output-dir", str(run), "--fresh"]) == 1
        err = capsys.readouterr().err
        assert "Traceback" not in err
        assert err.splitlines()[-1] == (
            f"error: {run} is being written by another keras-nmt (PID {first.pid}); wait for "
            "it to end, or choose another --output-dir")
        assert first.poll() is None and (run / "config.json").exists()  # untouched
    finally:
        first.kill()  # SIGKILL: the kernel releases the lock
        first.communicate()
    third = [*SLOW_RUN, "--epochs", "1", "--output-dir", str(run), "--fresh"]
    assert train_app.main(third) is not None
    assert not (tmp_path / ".run.lock").exists()  # beside the folder, deleted by its holder
