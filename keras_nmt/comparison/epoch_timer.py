"""`EpochTimer`: wall-clock and pure training time at the end of every epoch."""

import json
import time
from pathlib import Path

import keras

from keras_nmt.atomic_file import write_json


class EpochTimer(keras.callbacks.Callback):
    """Records, after every epoch, the seconds spent since training started.

    Two clocks, both cumulative over the epochs of the run:

    - ``seconds``: wall time from the start of ``fit`` to the end of the epoch, so it includes
      the validation loss pass and whatever the callbacks before this one did (the per-epoch
      validation translations of `ValidationScores`): the x axis of the learning curves.
    - ``train_seconds``: only the training steps, from each epoch's start to the start of its
      validation pass (``on_test_begin``, which ``fit`` calls for ``validation_data``), or to the
      epoch's end without validation: the denominator of the tokens/s throughput.

    The records go to ``path`` (a JSON list of ``{"epoch", "seconds", "train_seconds"}``) after
    every epoch, and every ``save_every`` batches a record of the epoch so far (``"partial":
    true``). A resumed run (``train`` restarts from its backup, also in the middle of an epoch)
    continues the clocks from the last record before the position it resumes at, so the times stay
    cumulative across crashes (the time lost to the crash itself, and up to ``save_every``
    batches before it, are not counted).

    Pass it through ``train(..., extra_callbacks=[timer])``: it then runs after the trainer's own
    callbacks.

    Args:
        path: the JSON file, e.g. ``RUN_DIR/epoch_times.json``.
        save_every: batches between partial records.
    """

    def __init__(self, path, save_every=50):
        super().__init__()
        self.path = Path(path)
        self.save_every = save_every
        self.records = []
        self._start = None
        self._base = None
        self._epoch = None
        self._epoch_start = None
        self._test_start = None

    def _previous(self):
        return json.loads(self.path.read_text()) if self.path.exists() else []

    def on_train_begin(self, logs=None):
        self._start = time.monotonic()
        self._base = None

    def on_epoch_begin(self, epoch, logs=None):
        if self._base is None:  # first epoch of this session: continue the earlier records
            previous = self._previous()
            self.records = [r for r in previous if r["epoch"] < epoch and not r.get("partial")]
            partial = [r for r in previous if r["epoch"] == epoch and r.get("partial")]
            last = (partial or self.records or [{"seconds": 0.0, "train_seconds": 0.0}])[-1]
            self._base = (last["seconds"], last["train_seconds"])
            self._train_total = last["train_seconds"]
        self._epoch = epoch
        self._epoch_start = time.monotonic()
        self._test_start = None

    def on_train_batch_end(self, batch, logs=None):
        if (batch + 1) % self.save_every == 0 and self._epoch_start is not None:
            now = time.monotonic()
            partial = {"epoch": self._epoch, "partial": True,
                       "seconds": self._base[0] + now - self._start,
                       "train_seconds": self._train_total + now - self._epoch_start}
            self._write([*self.records, partial])

    def on_test_begin(self, logs=None):
        if self._epoch_start is not None and self._test_start is None:
            self._test_start = time.monotonic()

    def on_epoch_end(self, epoch, logs=None):
        now = time.monotonic()
        self._train_total += (self._test_start or now) - self._epoch_start
        self.records = [r for r in self.records if r["epoch"] < epoch]
        self.records.append(
            {
                "epoch": epoch,
                "seconds": self._base[0] + now - self._start,
                "train_seconds": self._train_total,
            }
        )
        self._epoch_start = None
        self._write(self.records)

    def _write(self, records):
        write_json(self.path, records, indent=1)
