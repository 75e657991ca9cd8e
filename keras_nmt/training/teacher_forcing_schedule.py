"""Scheduled sampling (Bengio et al. 2015): the teacher-forcing probability as training goes on."""

import math

import keras

from keras_nmt.training.teacher_forcing_values import check_schedule


class TeacherForcingSchedule(keras.callbacks.Callback):
    """Sets a subclassed model's `teacher_forcing_probability` before every training batch.

    Bengio, Vinyals, Jaitly and Shazeer (2015), "Scheduled Sampling for Sequence Prediction with
    Recurrent Neural Networks", §2.4, with `i` the optimizer step (so a resumed run continues the
    schedule where it stopped):

    - `constant`: `p = k`;
    - `linear`: `p = max(floor, 1 - k·i)`;
    - `exponential`: `p = max(floor, k^i)` with `k < 1`;
    - `inverse_sigmoid`: `p = max(floor, k / (k + exp(i / k)))` with `k ≥ 1`.

    `p = 1` everywhere is plain teacher forcing.

    Args:
        kind: a key of `teacher_forcing_values.SCHEDULE_DEFAULTS`.
        k: the schedule's parameter (see above).
        floor: the lowest probability the decaying schedules reach.

    Example:
        >>> model.fit(data, callbacks=[TeacherForcingSchedule("inverse_sigmoid", k=200)])
    """

    def __init__(self, kind="constant", k=1.0, floor=0.0):
        super().__init__()
        check_schedule(kind, k, floor)
        self.kind, self.k, self.floor = kind, float(k), float(floor)

    @property
    def is_plain_teacher_forcing(self):
        return self.kind == "constant" and self.k == 1.0

    def probability(self, step):
        """The probability of feeding the ground truth at optimizer step `step` (0-based)."""
        if self.kind == "constant":
            return self.k
        if self.kind == "linear":
            p = 1.0 - self.k * step
        elif self.kind == "exponential":
            p = self.k**step
        else:
            p = self.k / (self.k + math.exp(min(step / self.k, 700.0)))
        return max(self.floor, p)

    def on_train_batch_begin(self, batch, logs=None):
        step = int(self.model.optimizer.iterations.numpy())
        self.model.teacher_forcing_probability.assign(self.probability(step))

    def on_epoch_end(self, epoch, logs=None):
        if logs is not None:
            logs["teacher_forcing"] = float(self.model.teacher_forcing_probability.numpy())
