"""`EpochProgress`: Keras' progress lines, saying what ran.

Keras' `ProgbarLogger` ends every epoch's line at the epoch's full count of steps, its time
divided by that count: an epoch that a time budget stopped after 123 of 1,752 batches printed
`1752/1752 - 30s - 17ms/step`, and a run resumed mid-epoch counted its remaining batches as the
whole epoch. This logger counts the batches that ran, within the whole epoch, and their time:

- verbose 1 (a terminal): Keras' live bar, ended at the batches that ran;
- verbose 2 (a file or a pipe: no bar, no escape codes): one line per epoch,
  `epoch 1/10: 123 of 1,752 batches in 32 s (261 ms/batch), validation 3 s - loss: 2.31 - ...`.

Example:
    >>> model.fit(data, epochs=10, verbose=2, callbacks=[EpochProgress(1752)])  # doctest: +SKIP
"""

import time

import keras

from keras_nmt.plural import plural


class EpochProgress(keras.callbacks.ProgbarLogger):
    """A `keras.callbacks.ProgbarLogger` that counts the batches that ran (see the module).

    Args:
        batches_per_epoch: the batches of a whole epoch (a resumed epoch's `fit` has fewer
            steps: they are its last ones).
        print_fn: where verbose 2's lines go.
    """

    def __init__(self, batches_per_epoch, print_fn=print):
        super().__init__()
        self.batches_per_epoch = batches_per_epoch
        self.print_fn = print_fn
        self.started = self.batches_ended = None

    def on_epoch_begin(self, epoch, logs=None):
        self.started = self.batches_ended = time.monotonic()
        if self.verbose == 1:
            super().on_epoch_begin(epoch, logs)
        self.seen = 0

    def on_train_batch_end(self, batch, logs=None):
        self.batches_ended = time.monotonic()
        if self.verbose == 1:
            super().on_train_batch_end(batch, logs)
        self.seen = batch + 1

    def on_epoch_end(self, epoch, logs=None):
        if self.verbose == 1:
            if self.progbar is not None:
                self.progbar.update(self.seen, list((logs or {}).items()), finalize=True)
            return
        if self.verbose != 2:
            return
        # A resumed epoch's fit starts mid-epoch: its steps are the epoch's last ones.
        whole = self.batches_per_epoch or self.target
        done = whole - (self.target or whole) + self.seen
        seconds = self.batches_ended - self.started
        rate = seconds / self.seen if self.seen else 0.0
        metrics = "".join(f" - {key}: {value:.4g}" for key, value in (logs or {}).items())
        ran = plural(self.seen, "batch")
        if not done == whole == self.seen:  # cut short, or the end of a resumed epoch
            ran += f" (to {done:,} of {whole:,})"
        self.print_fn(f"epoch {epoch + 1}/{self.epochs}: {ran} in {seconds:.0f} s "
                      f"({rate * 1000:.0f} ms/batch), validation "
                      f"{time.monotonic() - self.batches_ended:.0f} s{metrics}")
