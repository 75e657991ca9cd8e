"""`CheckpointAverage`: the mean of the latest weights, kept every few optimizer steps."""

import contextlib
from pathlib import Path

import keras
import numpy as np

from keras_nmt.workshop.atomic_file import atomic_path

# The suffix of each checkpoint (`{step:09d}.npz`; the folder: `run_folder.AVERAGE_DIR`).
_SUFFIX = ".npz"


class CheckpointAverage(keras.callbacks.Callback):
    """Keeps the trainable weights every ``every`` optimizer steps and averages the latest ones.

    The averaged model is the mean of ``count`` points: the current weights and the
    ``count - 1`` latest checkpoints, written at the optimizer steps that are multiples of
    ``every``. Vaswani et al. (2017, §6.1) averaged the last 5 checkpoints of the base
    Transformer; with small batches the last updates are noisy, and the mean of nearby iterates
    smooths that noise (Polyak and Juditsky 1992; Popel and Bojar 2018, §4.10). The checkpoints
    live on disk, so a run resumed from an exact backup averages exactly what an uninterrupted
    one would: checkpoints written after the restored step are dropped when training starts,
    and written again, equal, when the run passes their step.

    Only trainable weights are averaged (a seed generator's state is not a weight).

    Args:
        directory: folder of the checkpoints (``{step:09d}.npz``, created on the first one).
        count: points averaged, the current weights included (>= 2).
        every: optimizer steps between checkpoints (>= 1).

    Example:
        >>> average = CheckpointAverage("runs/x/average", count=5, every=200)
        >>> model.fit(data, epochs=8, callbacks=[average])  # doctest: +SKIP
        >>> with average.applied():  # the averaged model, for the duration
        ...     translate(model, sources)  # doctest: +SKIP
        >>> average.apply()  # keep it  # doctest: +SKIP
    """

    def __init__(self, directory, count, every):
        super().__init__()
        if count < 2:
            raise ValueError(f"count must be >= 2 (1 is no averaging), got {count}")
        if every < 1:
            raise ValueError(f"every must be >= 1, got {every}")
        self.directory = Path(directory)
        self.count = count
        self.every = every
        self.step = 0

    def _checkpoints(self):
        """``[(step, path)]`` of the checkpoints on disk, oldest first."""
        if not self.directory.exists():
            return []
        return sorted((int(path.stem), path) for path in self.directory.glob(f"*{_SUFFIX}"))

    def _weights(self):
        return [keras.ops.convert_to_numpy(v) for v in self.model.trainable_variables]

    def _assign(self, values):
        for variable, value in zip(self.model.trainable_variables, values, strict=True):
            variable.assign(value)

    def average(self):
        """The averaged trainable weights (numpy arrays, in `trainable_variables` order)."""
        points = [self._weights()]
        # A checkpoint of the current step holds the current weights: counted once.
        earlier = [path for step, path in self._checkpoints() if step < self.step]
        for path in earlier[-(self.count - 1):]:
            with np.load(path) as stored:
                points.append([stored[f"arr_{i}"] for i in range(len(points[0]))])
        # Summed in float64: the mean of `count` float32 arrays, rounded once.
        return [np.mean(np.stack(values).astype(np.float64), axis=0).astype(values[0].dtype)
                for values in zip(*points, strict=True)]

    @contextlib.contextmanager
    def applied(self):
        """Holds the averaged weights in the model for the ``with`` block, then the current."""
        current = self._weights()
        self._assign(self.average())
        try:
            yield
        finally:
            self._assign(current)

    def apply(self):
        """Replaces the model's trainable weights with the average (at the end of training)."""
        self._assign(self.average())

    def wrap(self, function):
        """``function`` (e.g. a validation translator) run on the averaged weights."""

        def averaged(*args, **kwargs):
            with self.applied():
                return function(*args, **kwargs)

        return averaged

    def on_train_begin(self, logs=None):
        self.step = int(keras.ops.convert_to_numpy(self.model.optimizer.iterations))
        for step, path in self._checkpoints():
            if step > self.step:  # written after the state a resumed run restored
                path.unlink()

    def on_train_batch_end(self, batch, logs=None):
        self.step += 1
        if self.step % self.every:
            return
        self.directory.mkdir(parents=True, exist_ok=True)
        path = self.directory / f"{self.step:09d}{_SUFFIX}"
        # `NAME.partial`, not `*.npz`: a killed write is never averaged.
        with atomic_path(path, path.with_name(f"{path.name}.partial")) as partial:
            with open(partial, "wb") as stream:
                np.savez(stream, *self._weights())
        # The average reads count - 1 checkpoints older than the current step: keep count.
        for _, old in self._checkpoints()[: -self.count]:
            old.unlink()
