"""The teacher-forcing schedules' kinds, defaults and checks, without Keras: the flags of
`keras-nmt train` are checked before TensorFlow starts (`TeacherForcingSchedule` is the callback
that follows them)."""

import math

# The schedules and the default K of each.
SCHEDULE_DEFAULTS = {"constant": 1.0, "linear": 1e-4, "exponential": 0.999,
                     "inverse_sigmoid": 500.0}


def check_schedule(kind, k, floor):
    """`ValueError` unless (`kind`, `k`, `floor`) is a teacher-forcing schedule (Bengio et al.
    2015): probabilities in [0, 1], finite numbers."""
    if kind not in SCHEDULE_DEFAULTS:
        raise ValueError(f"unknown teacher-forcing schedule {kind!r}; choose from "
                         f"{', '.join(SCHEDULE_DEFAULTS)}")
    if not (math.isfinite(k) and math.isfinite(floor)):
        raise ValueError("k and floor must be finite numbers")
    if not 0.0 <= floor <= 1.0:
        raise ValueError(f"floor is a probability in [0, 1], got {floor:g}")
    if kind in ("constant", "linear") and not 0.0 <= k <= 1.0:
        what = "probability" if kind == "constant" else "decrease per step"
        raise ValueError(f"the {kind} schedule's k (a {what}) must be in [0, 1], got {k:g}")
    if kind == "exponential" and not 0.0 < k < 1.0:
        raise ValueError(f"the exponential schedule needs 0 < k < 1, got {k:g}")
    if kind == "inverse_sigmoid" and k < 1.0:
        raise ValueError(f"the inverse sigmoid schedule needs k >= 1, got {k:g}")

