"""The run directory format: what `keras_nmt.training.train` writes and inference reads back.

Layout of a run directory (see docs/architecture.md):

    config.json       the training options (`keras_nmt.training.TrainConfig`, as JSON)
    model.keras       the trained model
    tokenizers/       source/ and target/ (`keras_nmt.text.load_tokenizer`)
    history.json      one record per epoch
    backup/           `keras.callbacks.BackupAndRestore` state while training (resumption)
    budget.weights.h5 with a time budget: the weights when it ran out (`budget.json`: where;
                      `keras_nmt.training.TimeBudget`)
"""

import dataclasses
import json
from pathlib import Path

import keras

from keras_nmt.inference.translator import Translator
from keras_nmt.models.registry import register_models
from keras_nmt.text import load_tokenizer

CONFIG_FILE = "config.json"
MODEL_FILE = "model.keras"
HISTORY_FILE = "history.json"
TOKENIZERS_DIR = "tokenizers"
BACKUP_DIR = "backup"


@dataclasses.dataclass
class RunDirectory:
    """A trained run, as `apps/train.py` writes it.

    Attributes:
        path: the directory.
        config: its `config.json` as a dict (the fields of `keras_nmt.training.TrainConfig`;
            inference needs only `max_length`).
        source_tokenizer, target_tokenizer: the tokenizers both twins trained on.
        model: the trained Keras model (from `model.keras`), uncompiled: inference needs no
            optimizer (nor the training package's learning-rate schedules to rebuild one), and
            training resumes from `backup/`, not from this file.
    """

    path: Path
    config: dict
    source_tokenizer: object
    target_tokenizer: object
    model: keras.Model

    @classmethod
    def load(cls, path):
        """Loads `path`; a clear error when it is not a finished run directory."""
        path = Path(path)
        needed = (CONFIG_FILE, MODEL_FILE, f"{TOKENIZERS_DIR}/source", f"{TOKENIZERS_DIR}/target")
        missing = [name for name in needed if not (path / name).exists()]
        if missing:
            raise FileNotFoundError(
                f"{path} is not a finished run directory (missing {', '.join(missing)}); "
                "train one with apps/train.py --output DIR"
            )
        register_models()
        return cls(
            path=path,
            config=json.loads((path / CONFIG_FILE).read_text()),
            source_tokenizer=load_tokenizer(path / TOKENIZERS_DIR / "source"),
            target_tokenizer=load_tokenizer(path / TOKENIZERS_DIR / "target"),
            model=keras.models.load_model(path / MODEL_FILE, compile=False),
        )

    def translator(self, **options):
        """A `Translator` over this run's model and tokenizers (`options`: `max_beam_size`...)."""
        max_length = self.config.get("max_length")
        return Translator(
            self.model,
            self.source_tokenizer,
            self.target_tokenizer,
            max_source_length=max_length,
            max_target_length=max_length,
            **options,
        )
