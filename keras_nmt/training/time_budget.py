"""Stops training cleanly after the epoch that crosses a wall-clock budget, across resumptions."""

import json
import os
import time
from pathlib import Path

import keras


class TimeBudget(keras.callbacks.Callback):
    """Sets `model.stop_training` at the end of the first epoch that ends past `minutes`.

    The clock is the run's, not the process's: with a ``clock_file`` the seconds spent are
    written there at every epoch end and every ``save_every`` batches, and a resumed run (a new
    process, or the second `fit` of `keras_nmt.training.exact_backup.fit_from`) continues from
    them, so an interrupted run trains for the same budget in all as an uninterrupted one (up to
    the ``save_every`` batches a kill may lose from the count).

    Args:
        minutes: the budget, counted from the start of the first `fit` of the run.
        clock_file: optional JSON file (``{"seconds": spent}``) keeping the count.
        save_every: batches between writes of the count.

    Example:
        >>> model.fit(data, epochs=100, callbacks=[TimeBudget(45, "runs/x/time_spent.json")])
        ...                                                             # doctest: +SKIP
    """

    def __init__(self, minutes, clock_file=None, save_every=50):
        super().__init__()
        self.minutes = minutes
        self.seconds = 60.0 * minutes
        self.clock_file = None if clock_file is None else Path(clock_file)
        self.save_every = save_every
        self.spent_before = 0.0
        self.start = None

    def elapsed(self):
        """Seconds of the budget spent so far (earlier processes included)."""
        return self.spent_before + time.monotonic() - self.start

    def _save(self):
        if self.clock_file is None:
            return
        temporary = self.clock_file.with_name(f".{self.clock_file.name}")
        temporary.write_text(json.dumps({"seconds": self.elapsed()}) + "\n")
        os.replace(temporary, self.clock_file)  # a kill never leaves half a file

    def on_train_begin(self, logs=None):
        if self.clock_file is not None and self.clock_file.exists():
            self.spent_before = json.loads(self.clock_file.read_text())["seconds"]
        self.start = time.monotonic()

    def on_train_batch_end(self, batch, logs=None):
        if (batch + 1) % self.save_every == 0:
            self._save()

    def on_epoch_end(self, epoch, logs=None):
        self._save()
        if self.elapsed() >= self.seconds:
            self.model.stop_training = True
