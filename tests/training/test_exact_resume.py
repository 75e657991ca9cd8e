"""`apps/train.py` killed with SIGKILL, re-run with the same command: the same final weights,
history, time-budget clock and comparison times."""

import json
import os
import random
import signal
import subprocess
import sys
import time
import types
from pathlib import Path

import keras
import numpy as np
import pytest

from keras_nmt.models.registry import register_models
from keras_nmt.workshop.cli import train as train_app
from keras_nmt.workshop.cli.common import exit_status
from keras_nmt.workshop.comparison.runner import learning_curve
from keras_nmt.workshop.run import exact_backup, run_state

ROOT = Path(__file__).resolve().parents[2]
# 192 pairs / 32 = 6 batches per epoch, a backup every 2 batches and at each epoch's end; a
# time budget of 15 s of the driver's clock runs out after batch 3 of epoch 2.
COMMAND = [
    "--train-size", "192", "--valid-size", "16", "--units", "16", "--embedding-dim", "8",
    "--batch-size", "32", "--epochs", "3", "--backup-every", "2", "--validation-sentences", "8",
    "--samples", "0", "--verbose", "0", "--seed", "3", "--time-budget", "0.25",
]
# Runs apps/train.py in this process and kills it (SIGKILL) at a chosen point:
#   batch:E,B  after B batches of epoch E are trained (and any backup of that batch written);
#   backup:N   half-way through writing the N-th backup file of this process;
#   model      when it starts writing model.keras (after the time budget stopped it);
#   none       never.
# The run's clock (`RunState`) is one second per batch trained, from another origin in each
# process: the times a run reports then depend only on what its processes trained and kept.
DRIVER = r"""
import io, os, signal, sys, types
import numpy as np
from keras_nmt.workshop.run import exact_backup
from keras_nmt.workshop.run import run_state

batches, origin = [0], 1000.0 * os.getpid()
run_state.time = types.SimpleNamespace(monotonic=lambda: origin + batches[0])


def counted(self, index, logs=None):  # the batch's second, seen by the callbacks at its end
    batches[0] += 1


exact_backup.ExactBackup.on_train_batch_begin = counted
kill, argv = sys.argv[1], sys.argv[2:]
if kill.startswith("batch:"):
    epoch, batch = map(int, kill[len("batch:"):].split(","))
    trained = exact_backup.ExactBackup.on_train_batch_end

    def on_train_batch_end(self, index, logs=None):
        trained(self, index, logs)
        if (self.epoch, self.batches_done) == (epoch, batch):
            os.kill(os.getpid(), signal.SIGKILL)

    exact_backup.ExactBackup.on_train_batch_end = on_train_batch_end
elif kill.startswith("backup:"):
    nth, written, savez = int(kill[len("backup:"):]), [0], np.savez

    def half_written(stream, **arrays):
        written[0] += 1
        if written[0] == nth:
            buffer = io.BytesIO()
            savez(buffer, **arrays)
            stream.write(buffer.getvalue()[: len(buffer.getvalue()) // 2])
            stream.flush()
            os.kill(os.getpid(), signal.SIGKILL)
        savez(stream, **arrays)

    np.savez = half_written
elif kill == "model":
    import keras
    keras.Model.save = lambda *args, **kwargs: os.kill(os.getpid(), signal.SIGKILL)
from keras_nmt.workshop.cli import train
sys.exit(train.main(argv) is None and 0)
"""


def start(output, kill="none"):
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TF_CPP_MIN_LOG_LEVEL": "2"}
    return subprocess.Popen(
        [sys.executable, "-c", DRIVER, kill, *COMMAND, "--output-dir", str(output)],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )


def finish(process):
    output, _ = process.communicate(timeout=600)
    return process.returncode, output


def train_here(output, monkeypatch, origin=None):
    """`DRIVER` with nothing killed, in this process (a fresh process would only add
    TensorFlow's start-up): the uninterrupted reference run, and the last re-run of the killed
    one, each with its clock from its own `origin`."""
    batches, origin = [0], 1000.0 * os.getpid() if origin is None else origin

    def counted(self, index, logs=None):
        batches[0] += 1

    with monkeypatch.context() as patch:
        patch.setattr(run_state, "time", types.SimpleNamespace(
            monotonic=lambda: origin + batches[0]))
        patch.setattr(exact_backup.ExactBackup, "on_train_batch_begin", counted, raising=False)
        assert exit_status(train_app.main([*COMMAND, "--output-dir", str(output)])) == 0


def weights(run):
    register_models()  # the package imports its modules on first use: the classes load here
    return keras.models.load_model(run / "model.keras", compile=False).get_weights()


@pytest.mark.slow
def test_sigkill_at_random_points_then_rerun_gives_the_same_weights(tmp_path, capsys,
                                                                    monkeypatch):
    full, killed = tmp_path / "full", tmp_path / "killed"
    train_here(full, monkeypatch)
    # 1. Mid-epoch: 3 of epoch 1's 6 batches trained, the last backup holds 2 of them.
    assert finish(start(killed, "batch:1,3"))[0] == -signal.SIGKILL
    # 2. During a backup write (the re-run's third backup file is left half-written).
    assert finish(start(killed, "backup:3"))[0] == -signal.SIGKILL
    assert (killed / "backup" / "state.npz.partial").exists()
    # 3. At a random moment once training is under way (it may also finish first).
    process = start(killed)
    state = killed / "backup" / "state.npz"
    before = state.stat().st_mtime_ns
    while process.poll() is None and state.stat().st_mtime_ns == before:
        time.sleep(0.05)
    time.sleep(random.Random(os.getpid()).uniform(0.0, 1.0))
    if process.poll() is None:
        process.send_signal(signal.SIGKILL)
    finish(process)
    # 4. Between the budget's stop (its epoch backed up) and the model's file: the re-run
    # trains nothing more (one more batch would change the weights).
    assert finish(start(killed, "model"))[0] in (0, -signal.SIGKILL)
    # The last re-run, in this process (the lock of the killed ones died with them), its clock
    # from an origin no other process of the run had.
    train_here(killed, monkeypatch, origin=1000.0 * os.getpid() + 500.0)
    for resumed, reference in zip(weights(killed), weights(full), strict=True):
        np.testing.assert_array_equal(resumed, reference)  # bitwise, on CPU
    # The history of the interrupted epochs is that of all their batches (the backups keep
    # the metrics' running sums), and the clocks those of the uninterrupted run: 6 s an epoch,
    # the last cut short at 15 s, the batches lost with a kill timed once, when trained again.
    history, reference = (json.loads((run / "history.json").read_text()) for run in (killed, full))
    assert [record["epoch"] for record in history] == [0, 1, 2]
    for record, expected in zip(history, reference, strict=True):
        assert record.keys() == expected.keys()
        for key, value in record.items():
            assert value == pytest.approx(expected[key], rel=1e-6), (key, record, expected)
    # The time budget (15 s) ran out at the same point of the run's clock.
    assert json.loads((killed / "budget.json").read_text()) == {"epochs": 2.5, "seconds": 15.0}
    # The comparison's times (its minutes, and the denominator of its tokens/s).
    curve = learning_curve(killed)
    assert curve["seconds"] == curve["step_seconds"] == [6.0, 12.0, 15.0]
    # The finished run is not trained again (asked in this process: no TensorFlow start-up).
    capsys.readouterr()
    assert train_app.main([*COMMAND, "--output-dir", str(killed)]) is None
    output = capsys.readouterr().out
    assert "stopped at its time budget of 0.25 minutes after 2.5 of 3" in output
