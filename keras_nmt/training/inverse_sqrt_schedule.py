"""The Transformer's learning-rate schedule: linear warm-up, then inverse square-root decay."""

import keras
from keras import ops


@keras.saving.register_keras_serializable(package="keras_nmt")
class InverseSqrtSchedule(keras.optimizers.schedules.LearningRateSchedule):
    """`lr = d_model^-0.5 * min(step^-0.5, step * warmup_steps^-1.5)` (Vaswani et al., 2017, 5.3).

    The rate grows linearly for `warmup_steps` steps, peaks at `(d_model * warmup_steps)^-0.5`
    and then decays as `step^-0.5`. The optimizer's iteration count is 0 before its first update;
    steps below 1 are clamped to 1 so that update gets the paper's step-1 rate (neither 0 nor
    infinity).

    Args:
        d_model: model width.
        warmup_steps: steps of linear warm-up.

    Example:
        >>> schedule = InverseSqrtSchedule(d_model=256, warmup_steps=4000)
        >>> optimizer = keras.optimizers.Adam(schedule, beta_1=0.9, beta_2=0.98, epsilon=1e-9)

    References:
        Vaswani et al., 2017, "Attention Is All You Need", https://arxiv.org/abs/1706.03762
    """

    def __init__(self, d_model, warmup_steps=4000):
        self.d_model = d_model
        self.warmup_steps = warmup_steps

    def __call__(self, step):
        step = ops.maximum(ops.cast(step, "float32"), 1.0)
        warmup = ops.cast(self.warmup_steps, "float32")
        scale = ops.cast(self.d_model, "float32") ** -0.5
        return scale * ops.minimum(ops.rsqrt(step), step * warmup**-1.5)

    def get_config(self):
        return {"d_model": self.d_model, "warmup_steps": self.warmup_steps}
