"""`apps/train.py` killed with SIGKILL, re-run with the same command: the same final weights."""

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import keras
import numpy as np
import pytest

import keras_nmt.models  # noqa: F401  (registers the model classes for loading)

ROOT = Path(__file__).resolve().parents[2]
# 192 pairs / 32 = 6 batches per epoch, a backup every 2 batches and at each epoch's end.
COMMAND = [
    "--train-size", "192", "--valid-size", "16", "--units", "16", "--embedding-dim", "8",
    "--batch-size", "32", "--epochs", "3", "--backup-every", "2", "--validation-sentences", "8",
    "--samples", "0", "--verbose", "0", "--seed", "3",
]
# Runs apps/train.py in this process and kills it (SIGKILL) at a chosen point:
#   batch:E,B  after B batches of epoch E are trained (and any backup of that batch written);
#   backup:N   half-way through writing the N-th backup file of this process;
#   none       never.
DRIVER = r"""
import io, os, signal, sys
import numpy as np
from keras_nmt.training import exact_backup

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
from keras_nmt.cli import train
sys.exit(train.main(argv) is None and 0)
"""


def start(output, kill="none"):
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TF_CPP_MIN_LOG_LEVEL": "2"}
    return subprocess.Popen(
        [sys.executable, "-c", DRIVER, kill, *COMMAND, "--output", str(output)],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )


def finish(process):
    output, _ = process.communicate(timeout=600)
    return process.returncode, output


def weights(run):
    return keras.models.load_model(run / "model.keras", compile=False).get_weights()


@pytest.mark.slow
def test_sigkill_at_random_points_then_rerun_gives_the_same_weights(tmp_path):
    full, killed = tmp_path / "full", tmp_path / "killed"
    uninterrupted = start(full)
    assert finish(uninterrupted)[0] == 0
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
    code, output = finish(start(killed))
    assert code == 0, output
    for resumed, reference in zip(weights(killed), weights(full), strict=True):
        np.testing.assert_array_equal(resumed, reference)  # bitwise, on CPU
    # The finished run is not trained again.
    code, output = finish(start(killed))
    assert code == 0 and "is finished" in output
