"""Stops training cleanly after the epoch that crosses a wall-clock budget, across resumptions."""

import contextlib
import json
import time
from pathlib import Path

import keras

from keras_nmt.atomic_file import atomic_path, write_json

# The weights at the moment the budget ran out (mid-epoch, usually) and that moment, in epochs
# and seconds: the strict reading of a budget that stops training only at an epoch's end.
# (Here, not in `run_folder`, which imports TensorFlow: the JAX benchmark imports this module.)
BUDGET_WEIGHTS_FILE = "budget.weights.h5"
BUDGET_POINT_FILE = "budget.json"


class TimeBudget(keras.callbacks.Callback):
    """Sets `model.stop_training` at the end of the first epoch that ends past `minutes`.

    The clock is the run's, not the process's: with a ``clock_file`` the seconds spent are
    written there at every epoch end and every ``save_every`` batches, and a resumed run (a new
    process, or the second `fit` of `keras_nmt.training.exact_backup.fit_from`) continues from
    them, so an interrupted run trains for the same budget in all as an uninterrupted one (up to
    the ``save_every`` batches a kill may lose from the count).

    Since the last epoch runs on past the budget, a ``snapshot_dir`` also keeps the weights of
    the moment the budget ran out (the end of the first batch, or epoch, that ends past it):
    ``budget.weights.h5``, with ``budget.json`` (``{"epochs": fractional epochs trained,
    "seconds": budget seconds spent}``) written after it, once per run.

    Args:
        minutes: the budget, counted from the start of the first `fit` of the run.
        clock_file: optional JSON file (``{"seconds": spent}``) keeping the count.
        save_every: batches between writes of the count.
        snapshot_dir: optional folder receiving the weights at the budget.
        batches_per_epoch: batches in a whole epoch, when a `fit` may start mid-epoch (a
            resumed epoch's `fit` has fewer steps); by default each `fit`'s own steps.
        average: optional `CheckpointAverage` (placed before this callback): the snapshot
            then holds the averaged weights, the model the run would end with at that moment.

    Example:
        >>> model.fit(data, epochs=100, callbacks=[TimeBudget(45, "runs/x/time_spent.json")])
        ...                                                             # doctest: +SKIP
    """

    def __init__(self, minutes, clock_file=None, save_every=50, snapshot_dir=None,
                 batches_per_epoch=None, average=None):
        super().__init__()
        self.minutes = minutes
        self.seconds = 60.0 * minutes
        self.clock_file = None if clock_file is None else Path(clock_file)
        self.save_every = save_every
        self.snapshot_dir = None if snapshot_dir is None else Path(snapshot_dir)
        self.batches_per_epoch = batches_per_epoch
        self.average = average
        self.spent_before = 0.0
        self.start = None
        self.epoch = 0
        self.snapshot_taken = False

    def elapsed(self):
        """Seconds of the budget spent so far (earlier processes included)."""
        return self.spent_before + time.monotonic() - self.start

    def _save(self):
        if self.clock_file is not None:
            write_json(self.clock_file, {"seconds": self.elapsed()})

    def _snapshot(self, epochs):
        """Keeps the weights and the position, the first time the budget has run out."""
        if self.snapshot_dir is None or self.snapshot_taken or self.elapsed() < self.seconds:
            return
        averaged = self.average.applied() if self.average else contextlib.nullcontext()
        with averaged, atomic_path(self.snapshot_dir / BUDGET_WEIGHTS_FILE) as temporary:
            self.model.save_weights(temporary)
        write_json(self.snapshot_dir / BUDGET_POINT_FILE,
                   {"epochs": round(epochs, 4), "seconds": self.elapsed()})
        self.snapshot_taken = True

    def on_train_begin(self, logs=None):
        if self.clock_file is not None and self.clock_file.exists():
            self.spent_before = json.loads(self.clock_file.read_text())["seconds"]
        if self.snapshot_dir is not None:
            self.snapshot_taken = (self.snapshot_dir / BUDGET_POINT_FILE).exists()
        self.start = time.monotonic()

    def on_epoch_begin(self, epoch, logs=None):
        self.epoch = epoch

    def on_train_batch_end(self, batch, logs=None):
        if (batch + 1) % self.save_every == 0:
            self._save()
        if self.snapshot_dir is not None:
            # A resumed epoch's fit starts mid-epoch: its steps are the epoch's last ones.
            whole = self.batches_per_epoch or self.params["steps"]
            done = whole - self.params["steps"] + batch + 1
            self._snapshot(self.epoch + done / whole)

    def on_epoch_end(self, epoch, logs=None):
        self._save()
        self._snapshot(epoch + 1)
        if self.elapsed() >= self.seconds:
            self.model.stop_training = True
