"""Every option of a training run, as saved in `RUN_DIR/config.json`."""

import dataclasses
import json
from pathlib import Path

from keras_nmt.models.presets import OPTION_DEFAULTS


@dataclasses.dataclass
class TrainConfig:
    """Options of `keras_nmt.training.train` (and the flags of `apps/train.py`).

    Model options that do not apply to the chosen model are ignored; which model takes which, and
    their defaults, live in `keras_nmt.models.presets`.
    """

    # model
    model: str = "lstm"
    api: str = "functional"
    embedding_dim: int = OPTION_DEFAULTS["embedding_dim"]
    units: int = OPTION_DEFAULTS["units"]
    num_layers: int = OPTION_DEFAULTS["num_layers"]
    dropout: float = OPTION_DEFAULTS["dropout"]
    reverse_source: bool = OPTION_DEFAULTS["reverse_source"]
    bidirectional: bool = OPTION_DEFAULTS["bidirectional"]
    attention_score: str = OPTION_DEFAULTS["attention_score"]
    input_feeding: bool = OPTION_DEFAULTS["input_feeding"]
    attention_units: int | None = OPTION_DEFAULTS["attention_units"]
    deep_output: bool = OPTION_DEFAULTS["deep_output"]
    d_model: int = OPTION_DEFAULTS["d_model"]
    num_heads: int = OPTION_DEFAULTS["num_heads"]
    ff_dim: int = OPTION_DEFAULTS["ff_dim"]
    pre_norm: bool = OPTION_DEFAULTS["pre_norm"]
    shared_embeddings: bool = OPTION_DEFAULTS["shared_embeddings"]
    tied_output: bool = OPTION_DEFAULTS["tied_output"]
    # text and data
    tokenizer: str = "char"
    vocab_size: int = 8000
    lowercase: bool = False
    data: str = "dates"
    valid: str | None = None
    source_column: int = 1
    train_size: int | None = None
    valid_size: int | None = None
    max_length: int = OPTION_DEFAULTS["max_length"]
    # optimisation
    epochs: int = 10
    steps_per_epoch: int | None = None
    batch_size: int = 64
    learning_rate: float = 1e-3
    warmup_steps: int = 4000
    clipnorm: float | None = 1.0
    label_smoothing: float = 0.0
    teacher_forcing: str = "constant:1.0"
    patience: int | None = None
    run_eagerly: bool = False
    jit_compile: bool = False
    precision: str = "float32"
    time_budget: float | None = None
    strategy: str = "default"
    # run
    seed: int = 0
    output: str = "runs/default"
    backup_every: int = 200
    validation_sentences: int = 500
    samples: int = 5
    verbose: int = 1

    def to_json(self, path):
        Path(path).write_text(json.dumps(dataclasses.asdict(self), indent=2) + "\n")

    @classmethod
    def from_json(cls, path):
        values = json.loads(Path(path).read_text())
        known = {field.name for field in dataclasses.fields(cls)}
        return cls(**{key: value for key, value in values.items() if key in known})
