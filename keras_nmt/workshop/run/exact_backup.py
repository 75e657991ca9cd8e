"""Exact resume: a killed run, re-run with the same command, ends with the same weights.

Keras' `BackupAndRestore` restores a mid-epoch backup and then replays the whole epoch, so the
batches seen before the kill are trained twice. `ExactBackup` saves the whole training state
(model variables, seed-generator states included, and optimizer variables) together with the
position `(epoch, batches done in that epoch)`; `fit_from` then trains exactly the batches that
follow that position: the rest of the interrupted epoch, then the remaining epochs. With a data
order that depends only on the seed and the epoch (`make_dataset(..., epochs=range(...))`) the
resumed run sees the same batches in the same order as an uninterrupted one, so on CPU the final
weights are bitwise equal (`tests/training/test_exact_resume.py` kills `keras-nmt train` with
SIGKILL and compares).

The state is one `.npz` file written next to its final name and renamed into place, so a kill
during a backup leaves the previous backup intact. With a `RunState`, the same file holds the
run's clock and history, and the running sums of the metrics (Keras' metric variables), so a
resumed run's time budget, times and history of its interrupted epoch continue exactly from the
restored position: the resumed epoch's loss, accuracy and perplexity are those of all its
batches, as in an uninterrupted run.

Example:
    >>> backup = ExactBackup("runs/x/backup", every=200)             # doctest: +SKIP
    >>> epoch, batch = backup.restore(model)  # (0, 0) without a backup  # doctest: +SKIP
    >>> fit_from(model, data.skip(batch), batches_per_epoch, epoch, batch, epochs,
    ...          callbacks=[backup, ...])                              # doctest: +SKIP
"""

import json
import zipfile
from pathlib import Path

import keras
import numpy as np

from keras_nmt.workshop.atomic_file import atomic_path
from keras_nmt.workshop.run.divergence import WAY_OUT, TrainingDiverged, where_kept
from keras_nmt.workshop.run.run_folder import (
    BACKUP_STATE_FILE,
    non_finite_weights,
    position_text,
)


class ExactBackup(keras.callbacks.Callback):
    """Saves the training state every `every` batches and at each epoch's end.

    Args:
        directory: where `state.npz` goes (created when needed).
        every: batches between backups.
        state: optional `RunState` saved and restored with the variables (place it before
            this callback, so that an epoch's record is in the backup written at its end).
    """

    def __init__(self, directory, every, state=None):
        super().__init__()
        self.directory = Path(directory)
        self.every = every
        self.state = state
        self.epoch = 0
        self.batches_done = 0
        # The state at the batch a time budget stopped the epoch at, written at the epoch's
        # end (after its validation and record), or None.
        self._cut_short = None
        self._resume_at = (0, 0)
        self.saved_at = None  # the position of the last backup, once one exists
        self._metrics = None  # the restored running sums (`_continue_metrics`)

    @property
    def path(self):
        return self.directory / BACKUP_STATE_FILE

    def _variables(self, model):
        optimizer = model.optimizer
        if optimizer is not None and not optimizer.built:
            optimizer.build(model.trainable_variables)
        return list(model.variables) + (list(optimizer.variables) if optimizer else [])

    def restore(self, model):
        """Loads the backup into `model` (built and compiled); returns `(epoch, batch)`.

        `(0, 0)` when there is no backup: training starts from the beginning.
        """
        if not self.path.exists():
            return 0, 0
        variables = self._variables(model)
        try:
            with np.load(self.path) as state:
                values = [state[f"v{i}"] for i in range(int(state["count"]))]
                position = int(state["epoch"]), int(state["batch"])
                if "metric_count" in state:
                    self._metrics = [state[f"m{i}"] for i in range(int(state["metric_count"]))]
                if self.state is not None and "run_state" in state:
                    self.state.load(json.loads(str(state["run_state"])))
        except (OSError, ValueError, EOFError, KeyError, zipfile.BadZipFile) as error:
            # Cut short, emptied or bit-flipped (a copy or a disk that failed): numpy says
            # "File is not a zip file" or "Bad CRC-32" without naming the file.
            raise ValueError(
                f"{self.path} is damaged ({error}); add --fresh to start the run again, or put "
                "back a good copy of it") from error
        if len(values) != len(variables):
            raise ValueError(
                f"{self.path} holds {len(values)} variables, the model has {len(variables)}; "
                "it was written by another model (start afresh with --fresh)"
            )
        for variable, value in zip(variables, values, strict=True):
            variable.assign(value)
        self._resume_at = position
        self.saved_at = position
        return position

    def save(self, epoch, batch):
        """Writes the state at position `(epoch, batch)` atomically; a state with non-finite
        weights is refused (`TrainingDiverged`), so the backup on disk stays the last good one."""
        self._write(self._capture(epoch, batch))

    def _capture(self, epoch, batch):
        """The arrays of the state at position `(epoch, batch)`, the run state aside."""
        bad = non_finite_weights(self.model.trainable_variables)
        if bad:
            raise TrainingDiverged(
                f"training diverged before {position_text(epoch, batch)}: {bad[0]} is not "
                f"finite; {where_kept(self)}, no model was written; {WAY_OUT}")
        variables = [keras.ops.convert_to_numpy(v) for v in self._variables(self.model)]
        # Mid-epoch, the metrics hold the epoch's running sums (at its end, validation's).
        metrics = [keras.ops.convert_to_numpy(v) for v in self.model.metrics_variables] \
            if batch else []
        return {"count": len(variables), "metric_count": len(metrics), "epoch": epoch,
                "batch": batch, **{f"v{i}": value for i, value in enumerate(variables)},
                **{f"m{i}": value for i, value in enumerate(metrics)}}

    def _write(self, arrays):
        """Writes captured arrays, with the run state of now, atomically."""
        if self.state is not None:
            arrays = {**arrays, "run_state": np.array(json.dumps(self.state.to_dict()))}
        self.directory.mkdir(parents=True, exist_ok=True)
        with atomic_path(self.path, self.path.with_name(self.path.name + ".partial")) as partial:
            with open(partial, "wb") as stream:
                np.savez(stream, **arrays)
        self.saved_at = (int(arrays["epoch"]), int(arrays["batch"]))

    def on_epoch_begin(self, epoch, logs=None):
        self.epoch = epoch
        self.batches_done = self._resume_at[1] if epoch == self._resume_at[0] else 0
        self._cut_short = None
        if not self.batches_done:
            self._metrics = None

    def _continue_metrics(self):
        """Adds the restored running sums to the metrics, after the resumed epoch's first batch.

        Not before it: `fit` builds its metrics when it traces the first step. The states of
        the training metrics are sums over batches (Keras' loss tracker, `MaskedAccuracy`,
        `Perplexity`), so the epoch's figures become those of all its batches.
        """
        variables = self.model.metrics_variables
        if len(variables) != len(self._metrics):
            raise ValueError(f"{self.path} holds {len(self._metrics)} metric variables, the "
                             f"model has {len(variables)} (start afresh with --fresh)")
        for variable, value in zip(variables, self._metrics, strict=True):
            variable.assign_add(value)
        self._metrics = None

    def on_train_batch_end(self, batch, logs=None):
        if self._metrics:
            self._continue_metrics()
        self.batches_done += 1
        # The epoch's last batch is saved by `on_epoch_end`, as the next epoch's start.
        last = batch + 1 == self.params.get("steps")
        # A callback before this one stopped training (the time budget): Keras ends the epoch
        # after this batch. Its position and state (validation resets the metrics' sums) are
        # kept now and written with the epoch's record at its end, so a re-run never starts
        # between the two: it either trains again up to this batch or finds the epoch done.
        if self.model.stop_training and not last:
            self._cut_short = self._capture(self.epoch, self.batches_done)
        elif self.batches_done % self.every == 0 and not last:
            self.save(self.epoch, self.batches_done)

    def on_epoch_end(self, epoch, logs=None):
        if self._cut_short is not None:
            self._write(self._cut_short)
        else:
            self.save(epoch + 1, 0)


def fit_from(model, data, batches_per_epoch, epoch, batch, epochs, **fit_options):
    """Trains from position `(epoch, batch)` to the end of epoch `epochs - 1`.

    Args:
        model: a compiled model holding the state saved at that position.
        data: the batches that follow the position, one epoch after another (at least
            `(epochs - epoch) * batches_per_epoch - batch` of them).
        batches_per_epoch: batches in a whole epoch.
        epoch, batch: the position (`ExactBackup.restore`'s result).
        epochs: the total number of epochs.
        **fit_options: more `model.fit` arguments (callbacks, validation data...).

    Returns:
        The merged `History.history` dict of the epochs trained.
    """
    history = {}

    def run(dataset, first, last, steps):
        result = model.fit(
            dataset, initial_epoch=first, epochs=last, steps_per_epoch=steps, **fit_options
        )
        for key, values in result.history.items():
            history.setdefault(key, []).extend(values)

    if batch and epoch < epochs:
        # The interrupted epoch's remaining batches, as one shorter epoch of its own.
        rest = batches_per_epoch - batch
        run(data.take(rest), epoch, epoch + 1, rest)
        data, epoch = data.skip(rest), epoch + 1
        if model.stop_training:  # early stopping, time budget or NaN in that epoch
            return history
    if epoch < epochs:
        run(data, epoch, epochs, batches_per_epoch)
    return history
