"""A diverged training ends with an error, never as a finished run.

A learning rate far too high makes the loss overflow (1e30: a loss of 8e31, whose perplexity
exp(loss) is inf) or the weights NaN (1e38); Keras' `TerminateOnNaN` only stopped `fit`, and the
run was then saved, marked finished and exported, translating everything to empty lines.
`StopOnDivergence` raises `TrainingDiverged` at the first batch whose loss or perplexity is not
finite, before the backup callbacks of that batch run, and `ExactBackup` refuses to save
non-finite variables, so the last backup on disk is the last good state and no `model.keras`
or `finished.json` is written. The command prints one `error:` line naming the run, the last
good backup and the way out.

Example:
    >>> model.fit(data, callbacks=[StopOnDivergence("runs/x", backup), backup])  # doctest: +SKIP
"""

import math

import keras

from keras_nmt.workshop.run.run_folder import position_text

# The epoch's running figures that must stay finite (`Perplexity` overflows first: exp(loss)
# is inf from a loss of about 89 in float32, far above any loss of a learning model).
WATCHED = ("loss", "perplexity")
WAY_OUT = ("lower --learning-rate (or set --clipnorm) and start again with --fresh, or choose "
           "another --output-dir")


class TrainingDiverged(ValueError):
    """The loss or the weights became non-finite; the message names the run and the way out."""


def where_kept(backup):
    """What a diverged run keeps: its last good backup, or nothing."""
    if backup is None or backup.saved_at is None:
        return "no backup was kept"
    return f"the last good backup ({position_text(*backup.saved_at)}) is kept in {backup.path}"


class StopOnDivergence(keras.callbacks.Callback):
    """Raises `TrainingDiverged` at the first batch whose loss or perplexity is not finite.

    Place it before the run state and the backup, so that the diverged batch is never saved.

    Args:
        run: the run folder, named in the error.
        backup: optional `ExactBackup` of the run (its last save is named in the error).
        learning_rate: the learning rate, named in the error.
    """

    def __init__(self, run, backup=None, learning_rate=None):
        super().__init__()
        self.run = run
        self.backup = backup
        self.learning_rate = learning_rate
        self.epoch = 0

    def on_epoch_begin(self, epoch, logs=None):
        self.epoch = epoch

    def on_train_batch_end(self, batch, logs=None):
        figures = {name: float(logs[name]) for name in WATCHED if name in (logs or {})}
        bad = {name: value for name, value in figures.items() if not math.isfinite(value)}
        if not bad:
            return
        said = ", ".join(f"{name} {value:.3g}" for name, value in figures.items())
        rate = f" with learning rate {self.learning_rate:g}" if self.learning_rate else ""
        raise TrainingDiverged(
            f"training in {self.run} diverged at epoch {self.epoch + 1}, batch {batch + 1} "
            f"({said}){rate}; {where_kept(self.backup)}, no model was written; {WAY_OUT}"
        )
