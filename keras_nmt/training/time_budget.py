"""Stops training cleanly after the epoch that crosses a wall-clock budget."""

import time

import keras


class TimeBudget(keras.callbacks.Callback):
    """Sets `model.stop_training` at the end of the first epoch that ends past `minutes`.

    Args:
        minutes: the budget, counted from the start of `fit`.
    """

    def __init__(self, minutes):
        super().__init__()
        self.seconds = 60.0 * minutes
        self.start = None

    def on_train_begin(self, logs=None):
        self.start = time.monotonic()

    def on_epoch_end(self, epoch, logs=None):
        if time.monotonic() - self.start >= self.seconds:
            self.model.stop_training = True
