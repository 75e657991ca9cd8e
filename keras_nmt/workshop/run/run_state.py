"""`RunState`: a run's clock and history, the part of its state that is not variables.

One record, kept in memory by a callback and saved inside each exact-resume backup
(`keras_nmt.workshop.run.exact_backup`, as fairseq keeps ``previous_training_time`` in its
checkpoint), so a kill at any moment leaves the clock and the history consistent with the
weights a resumed run restores: the time and epochs after the last backup are lost together
with its batches, which the resumed run trains (and times) again. The time budget
(`TimeBudget`), the history (``history.json``) and the comparison's minutes and tokens/s
(read from ``history.json``) all read this one clock.

Two clocks, both cumulative over the run's processes:

- ``seconds``: wall time from the start of training (the first `fit` of the first process),
  validation and callbacks included: the time budget's clock and the learning curves' x axis.
- ``step_seconds``: only the training steps, from each epoch's start to the start of its
  validation pass (``on_test_begin``) or to its end: the denominator of tokens/s.

Example:
    >>> state = RunState("runs/x/history.json")
    >>> model.fit(data, epochs=3, callbacks=[..., state])  # doctest: +SKIP
    >>> read_history("runs/x/history.json")["step_seconds"]  # doctest: +SKIP
    [4.1, 8.0, 12.2]
"""

import json
import time
from pathlib import Path

import keras

from keras_nmt.workshop.atomic_file import write_json


class RunState(keras.callbacks.Callback):
    """Times the run and records one history record per epoch.

    Place it after the callbacks that add to the epoch's logs (validation scores) and before
    the backup that saves it. Each record is ``{"epoch", **logs, "seconds", "step_seconds"}``;
    a resumed run replays its interrupted epoch, whose record replaces any later one.

    Args:
        history_file: optional JSON file receiving the records (a list) after every epoch.
    """

    def __init__(self, history_file=None):
        super().__init__()
        self.history_file = None if history_file is None else Path(history_file)
        self.history = []
        self._seconds_before = 0.0
        self._steps_before = 0.0
        self._start = None
        self._step_start = None

    def start(self):
        """Starts this process's clock (once: later calls, e.g. a second `fit`, do nothing)."""
        if self._start is None:
            self._start = time.monotonic()

    def seconds(self):
        """Wall seconds of the run so far, over all its processes."""
        running = 0.0 if self._start is None else time.monotonic() - self._start
        return self._seconds_before + running

    def step_seconds(self):
        """Seconds of training steps so far, over all the run's processes."""
        running = 0.0 if self._step_start is None else time.monotonic() - self._step_start
        return self._steps_before + running

    def to_dict(self):
        """The state now, JSON-ready: ``{"seconds", "step_seconds", "history"}``."""
        return {"seconds": self.seconds(), "step_seconds": self.step_seconds(),
                "history": self.history}

    def load(self, state):
        """Continues from a `to_dict` value (a resumed run): its clock restarts from there."""
        self._seconds_before = float(state["seconds"])
        self._steps_before = float(state["step_seconds"])
        self.history = list(state["history"])
        self._start = self._step_start = None

    def _stop_steps(self):
        if self._step_start is not None:
            self._steps_before = self.step_seconds()
            self._step_start = None

    def on_train_begin(self, logs=None):
        self.start()

    def on_epoch_begin(self, epoch, logs=None):
        self._step_start = time.monotonic()

    def on_test_begin(self, logs=None):
        self._stop_steps()

    def on_epoch_end(self, epoch, logs=None):
        self._stop_steps()
        record = {"epoch": epoch, **{key: float(value) for key, value in (logs or {}).items()},
                  "seconds": self.seconds(), "step_seconds": self.step_seconds()}
        self.history = [*(r for r in self.history if r["epoch"] < epoch), record]
        if self.history_file is not None:
            write_json(self.history_file, self.history, indent=1)


def read_history(path):
    """A ``history.json`` as Keras' `History.history`: ``{key: [value per epoch]}``."""
    history = {}
    for record in json.loads(Path(path).read_text()):
        for key, value in record.items():
            if key != "epoch":
                history.setdefault(key, []).append(value)
    return history
