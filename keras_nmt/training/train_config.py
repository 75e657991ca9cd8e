"""Every option of a training run, as saved in `RUN_DIR/config.json`."""

import dataclasses
import json
from pathlib import Path

from keras_nmt.atomic_file import write_json
from keras_nmt.models.configurations import recipe_fields
from keras_nmt.models.model_options import ModelOptions

# Keras dtype policies a run may ask for; `auto` is resolved by `training.precision`.
PRECISIONS = ("auto", "float32", "mixed_bfloat16", "mixed_float16")


@dataclasses.dataclass
class TrainConfig(ModelOptions):
    """Options of `keras_nmt.training.train` (and the flags of `keras-nmt train`).

    The model options (sizes, attention...) and their defaults are the fields of `ModelOptions`
    (first in `config.json`); options that do not apply to the chosen model are ignored (which
    model takes which: `keras_nmt.models.configurations.MODEL_ARGUMENTS`).
    """

    # model (its options: `ModelOptions`)
    model: str = "lstm"
    api: str = "functional"
    # text and data
    tokenizer: str = "char"
    vocab_size: int = 8000
    lowercase: bool = False
    data: str = "dates"
    valid: str | None = None
    source_column: int = 0
    target_column: int | None = None
    accept_data: bool = False
    skip_bad_lines: bool = False
    max_bad_fraction: float = 0.01
    train_size: int | None = None
    valid_size: int | None = None
    # optimisation
    epochs: int = 10
    steps_per_epoch: int | None = None
    batch_size: int = 64
    batch_tokens: int | None = None
    learning_rate: float = 1e-3
    warmup_steps: int = 4000
    clipnorm: float | None = 1.0
    label_smoothing: float = 0.0
    teacher_forcing: str = "constant:1.0"
    patience: int | None = None
    run_eagerly: bool = False
    jit_compile: bool = False
    precision: str = "auto"
    time_budget: float | None = None
    # The final model is the mean of this many weights kept every `average_every` optimizer
    # steps, the last included (`CheckpointAverage`); 1: the weights as trained.
    average_checkpoints: int = 1
    average_every: int = 200
    strategy: str = "default"
    # run
    seed: int = 0
    output: str = "runs/default"
    backup_every: int = 200
    validation_sentences: int = 500
    samples: int = 5
    verbose: int = 1

    def __post_init__(self):
        # Early stopping restores the best epoch's weights as trained; the average would then
        # replace them, so the saved model would be neither the best epoch's nor the average.
        if self.patience is not None and self.average_checkpoints > 1:
            raise ValueError(
                "--patience and --average-checkpoints do not combine: early stopping keeps the "
                "best epoch's weights as trained, checkpoint averaging ends with a mean of the "
                "last ones; choose one"
            )

    @classmethod
    def from_recipe(cls, recipe, **options):
        """The `TrainConfig` of reference recipe ``NAME/MODEL``, with `options` on top (the
        recipe's fields: `keras_nmt.models.configurations.recipe_fields`).

        Example:
            >>> TrainConfig.from_recipe("spa-eng/transformer", data="spa-eng.{split}.tsv").d_model
            256
        """
        return cls(**{**recipe_fields(recipe), **options})

    def to_json(self, path):
        """Writes the options to `path` atomically (never a half-written file)."""
        write_json(path, dataclasses.asdict(self), indent=2)

    @classmethod
    def from_json(cls, path):
        values = json.loads(Path(path).read_text())
        known = {field.name for field in dataclasses.fields(cls)}
        return cls(**{key: value for key, value in values.items() if key in known})
