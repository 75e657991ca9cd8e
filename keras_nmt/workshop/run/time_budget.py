"""Stops training cleanly at the batch that crosses a wall-clock budget, across resumptions."""

import contextlib
from pathlib import Path

import keras

from keras_nmt.workshop.atomic_file import atomic_path, write_json
from keras_nmt.workshop.run.run_state import RunState


class TimeBudget(keras.callbacks.Callback):
    """Sets `model.stop_training` at the end of the first batch that ends past `minutes`.

    The budget is a wall-clock promise: training stops one batch after it runs out (Keras then
    ends the epoch early: validation and the epoch's backup, which `ExactBackup` saves as the
    position inside the epoch, so that a re-run with a larger budget continues exactly).

    The clock is the run's, not the process's: with the run's `RunState` as ``clock`` (saved in
    every exact-resume backup), a resumed run (a new process, or the second `fit` of
    `keras_nmt.workshop.run.exact_backup.fit_from`) continues from the time of the backup it
    restored, so an interrupted run trains for the same budget in all as an uninterrupted one
    (the time after that backup is lost with the batches the resumed run trains again).

    ``snapshot_weights`` and ``snapshot_point`` also keep the weights of the moment the budget
    ran out (the end of the first batch that ends past it; the comparison scores them): the
    weights (a ``.weights.h5`` file), then where (``{"epochs": fractional epochs trained,
    "seconds": budget seconds spent}``, JSON), once per run.

    Args:
        minutes: the budget, counted from the start of the first `fit` of the run.
        clock: optional `RunState` of the run (a restored one continues its time); by default
            a clock of this callback's own, started by the first `fit`.
        snapshot_weights, snapshot_point: optional files receiving the weights at the budget
            and where it ran out (both or neither).
        batches_per_epoch: batches in a whole epoch, when a `fit` may start mid-epoch (a
            resumed epoch's `fit` has fewer steps); by default each `fit`'s own steps.
        average: optional `CheckpointAverage` (placed before this callback): the snapshot
            then holds the averaged weights, the model the run would end with at that moment.

    Example:
        >>> state = RunState("runs/x/history.json")
        >>> model.fit(data, epochs=100, callbacks=[state, TimeBudget(45, clock=state)])
        ...                                                             # doctest: +SKIP
    """

    def __init__(self, minutes, clock=None, snapshot_weights=None, snapshot_point=None,
                 batches_per_epoch=None, average=None):
        super().__init__()
        self.minutes = minutes
        self.seconds = 60.0 * minutes
        self.clock = RunState() if clock is None else clock
        self.snapshot_weights = None if snapshot_weights is None else Path(snapshot_weights)
        self.snapshot_point = None if snapshot_point is None else Path(snapshot_point)
        self.batches_per_epoch = batches_per_epoch
        self.average = average
        self.epoch = 0
        self.snapshot_taken = False

    def elapsed(self):
        """Seconds of the budget spent so far (earlier processes included)."""
        return self.clock.seconds()

    def ran_out(self):
        """Whether the budget is spent."""
        return self.elapsed() >= self.seconds

    def _snapshot(self, epochs):
        """Keeps the weights and the position, the first time the budget has run out."""
        if self.snapshot_point is None or self.snapshot_taken or not self.ran_out():
            return
        averaged = self.average.applied() if self.average else contextlib.nullcontext()
        with averaged, atomic_path(self.snapshot_weights) as temporary:
            self.model.save_weights(temporary)
        write_json(self.snapshot_point, {"epochs": round(epochs, 4), "seconds": self.elapsed()})
        self.snapshot_taken = True

    def on_train_begin(self, logs=None):
        self.clock.start()
        if self.snapshot_point is not None:
            self.snapshot_taken = self.snapshot_point.exists()

    def on_epoch_begin(self, epoch, logs=None):
        self.epoch = epoch

    def on_train_batch_end(self, batch, logs=None):
        if self.snapshot_point is not None:
            # A resumed epoch's fit starts mid-epoch: its steps are the epoch's last ones.
            whole = self.batches_per_epoch or self.params["steps"]
            done = whole - self.params["steps"] + batch + 1
            self._snapshot(self.epoch + done / whole)
        if self.ran_out():
            self.model.stop_training = True

    def on_epoch_end(self, epoch, logs=None):
        self._snapshot(epoch + 1)
        if self.ran_out():
            self.model.stop_training = True
