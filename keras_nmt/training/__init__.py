"""Training: masked loss and metrics, callbacks and the `train` function.

`train` writes a run directory in the format of `keras_nmt.inference.run_directory` and
translates through `keras_nmt.inference.Translator` (layering: docs/architecture.md); a
`Task` (`task.py`; `TranslationTask` reads corpora) gives it the pairs and the training batches.
"""

from keras_nmt._lazy import lazy_package

__all__ = lazy_package(
    __name__,
    {
        "CheckpointAverage": "keras_nmt.training.checkpoint_average",
        "FusedAdam": "keras_nmt.training.fused_adam",
        "InverseSqrtSchedule": "keras_nmt.training.inverse_sqrt_schedule",
        "MaskedAccuracy": "keras_nmt.training.masked_accuracy",
        "MaskedSparseCrossEntropy": "keras_nmt.training.masked_sparse_cross_entropy",
        "Perplexity": "keras_nmt.training.perplexity",
        "RunState": "keras_nmt.training.run_state",
        "SCHEDULES": "keras_nmt.training.teacher_forcing_schedule",
        "SampleTranslations": "keras_nmt.training.sample_translations",
        "TeacherForcingSchedule": "keras_nmt.training.teacher_forcing_schedule",
        "TimeBudget": "keras_nmt.training.time_budget",
        "TrainConfig": "keras_nmt.training.train_config",
        "TrainResult": "keras_nmt.training.trainer",
        "TrainingStream": "keras_nmt.training.task",
        "Task": "keras_nmt.training.task",
        "TranslationTask": "keras_nmt.training.task",
        "train": "keras_nmt.training.trainer",
    },
)
