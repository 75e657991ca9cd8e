"""Reading a run directory back: config, tokenizers, model, translator."""

import dataclasses
from pathlib import Path

import keras

from keras_nmt.export.translator import Translator
from keras_nmt.text import load_tokenizer
from keras_nmt.training.train_config import TrainConfig

CONFIG_FILE = "config.json"
MODEL_FILE = "model.keras"
HISTORY_FILE = "history.json"
TOKENIZERS_DIR = "tokenizers"
BACKUP_DIR = "backup"


@dataclasses.dataclass
class RunDirectory:
    """A trained run, as `apps/train.py` writes it (see `../shared/DESIGN.md`).

    Attributes:
        path: the directory.
        config: its `TrainConfig`.
        source_tokenizer, target_tokenizer: the tokenizers both twins trained on.
        model: the trained Keras model (from `model.keras`).
    """

    path: Path
    config: TrainConfig
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
        import keras_nmt.models  # noqa: F401  (registers the model classes for loading)

        return cls(
            path=path,
            config=TrainConfig.from_json(path / CONFIG_FILE),
            source_tokenizer=load_tokenizer(path / TOKENIZERS_DIR / "source"),
            target_tokenizer=load_tokenizer(path / TOKENIZERS_DIR / "target"),
            model=keras.models.load_model(path / MODEL_FILE),
        )

    def translator(self):
        """A `Translator` over this run's model and tokenizers."""
        return Translator(
            self.model,
            self.source_tokenizer,
            self.target_tokenizer,
            max_source_length=self.config.max_length,
            max_target_length=self.config.max_length,
        )
