"""Training: masked loss and metrics, callbacks and the `train` function.

`train` writes a run directory in the format of `keras_nmt.inference.run_directory` and
translates through `keras_nmt.inference.Translator` (layering: docs/architecture.md).
"""

from keras_nmt.training.checkpoint_average import CheckpointAverage
from keras_nmt.training.fused_adam import FusedAdam
from keras_nmt.training.inverse_sqrt_schedule import InverseSqrtSchedule
from keras_nmt.training.masked_accuracy import MaskedAccuracy
from keras_nmt.training.masked_sparse_cross_entropy import MaskedSparseCrossEntropy
from keras_nmt.training.perplexity import Perplexity
from keras_nmt.training.run_state import RunState
from keras_nmt.training.sample_translations import SampleTranslations
from keras_nmt.training.teacher_forcing_schedule import SCHEDULES, TeacherForcingSchedule
from keras_nmt.training.time_budget import TimeBudget
from keras_nmt.training.train_config import TrainConfig

__all__ = [
    "SCHEDULES",
    "CheckpointAverage",
    "FusedAdam",
    "InverseSqrtSchedule",
    "MaskedAccuracy",
    "MaskedSparseCrossEntropy",
    "Perplexity",
    "RunState",
    "SampleTranslations",
    "TeacherForcingSchedule",
    "TimeBudget",
    "TrainConfig",
]
