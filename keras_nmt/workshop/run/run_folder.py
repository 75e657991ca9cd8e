"""The run folder format: what `keras_nmt.workshop.run.trainer.train` writes and inference reads
back.

This module names every file and folder of a run folder; every other module asks it for
the names. Layout (see docs/architecture.md):

    config.json        the training options (`keras_nmt.workshop.run.train_config.TrainConfig`,
                       as JSON)
    data.json          what the data is: each file read (path, size, SHA-256, columns, a
                       skipped header) and the training data's profile per side (words,
                       characters: `keras_nmt.workshop.corpora.data_profile`); exports carry it
    tokenizers/        source/ and target/ (any kind:
                       `keras_nmt.workshop.marian_tokenizer.load_run_tokenizer`)
    provenance.json    the tokenizers' fingerprints (a model is refused with others), the
                       model's weights' fingerprint (`model.keras` is refused with another
                       record) and the attribution of a model started from someone else's
                       (`keras_nmt.workshop.run.provenance`)
    model.keras        the trained model
    history.json       one record per epoch: its logs, and `seconds` (wall time of the run so
                       far, validation included) and `step_seconds` (the training steps alone),
                       both cumulative over all the run's processes (`RunState`)
    backup/state.npz   the exact-resume backup (`ExactBackup`): weights, optimizer and metric
                       variables, the position in the epoch and the run state (its clock and
                       history), in one file replaced atomically
    precision.json     the dtype policy chosen when the run started (a resumed run keeps it)
    finished.json      written when training ended: `{"epochs": the epochs asked for}`
    train.lock         the lock file earlier versions' trainings kept in the folder (a run's
                       name, replaced by `import --force`); the lock is now ``.NAME.lock``
                       beside the folder, every writer's (`owned_folder.folder_lock`)
    logs/              TensorBoard event files (train/, validation/)
    average/           with --average-checkpoints K: the latest weights (`{step:09d}.npz`)
    budget.weights.h5  with --time-budget: the weights when it ran out (`TimeBudget`)
    budget.json        with --time-budget: where it ran out (`{"epochs", "seconds"}`)
    comparison.json    written by `compare`: the run's rows, curve and attention
    spelling.json      written by `spell`: the spelling report
    test_pairs.tsv     written by `spell`: noisy, clean and corrected test sentences
    hypotheses.txt     written by `evaluate`: its translations of the test sources
    imported.json      written by `import`: the imported model's name, licence, source, credit

A file is written whole or not at all (`workshop.atomic_file`): a kill mid-write leaves at most
a temporary `.NAME` (or `NAME.partial` in backup/ and average/), which `--fresh` also deletes.
"""

import dataclasses
from pathlib import Path

import keras
import numpy as np

from keras_nmt.inference.translator import Translator
from keras_nmt.models.registry import register_models
from keras_nmt.saved_files import read_json
from keras_nmt.workshop.marian_tokenizer import load_run_tokenizer
from keras_nmt.workshop.run.provenance import (
    IMPORT_FILE,
    PROVENANCE_FILE,
    TOKENIZERS_DIR,
    check_model_binding,
    check_tokenizers,
    read_provenance,
    warn_unrecorded,
)

CONFIG_FILE = "config.json"
DATA_FILE = "data.json"
MODEL_FILE = "model.keras"
HISTORY_FILE = "history.json"
BACKUP_DIR = "backup"
BACKUP_STATE_FILE = "state.npz"  # in BACKUP_DIR
PRECISION_FILE = "precision.json"
FINISHED_FILE = "finished.json"
LOCK_FILE = "train.lock"
LOGS_DIR = "logs"
AVERAGE_DIR = "average"
BUDGET_WEIGHTS_FILE = "budget.weights.h5"
BUDGET_POINT_FILE = "budget.json"
COMPARISON_FILE = "comparison.json"
SPELLING_FILE = "spelling.json"
HYPOTHESES_FILE = "hypotheses.txt"
SPELLING_TEST_FILE = "test_pairs.tsv"
# What `train` writes (what `--fresh` deletes, their temporary names included; nothing else in
# the folder is touched).
TRAIN_FILES = (
    CONFIG_FILE, DATA_FILE, TOKENIZERS_DIR, PROVENANCE_FILE, MODEL_FILE, HISTORY_FILE,
    BACKUP_DIR, PRECISION_FILE, FINISHED_FILE, LOGS_DIR, AVERAGE_DIR, BUDGET_WEIGHTS_FILE,
    BUDGET_POINT_FILE,
)
# Every name a run folder may hold.
RUN_FOLDER_NAMES = (*TRAIN_FILES, LOCK_FILE, COMPARISON_FILE, SPELLING_FILE,
                       SPELLING_TEST_FILE, HYPOTHESES_FILE, IMPORT_FILE)


def read_run_config(path):
    """A run's `config.json` as a dict; a damaged one is named with the way out (`ValueError`)."""
    return read_json(path, "copy the run folder again, or train again into a new folder",
                     expect=dict)


def run_columns(config):
    """The ``(source, target)`` TSV columns a run's `config.json` dict read."""
    source, target = config.get("source_column", 0), config.get("target_column")
    return source, (1 - source if target is None else target)


def non_finite_weights(variables):
    """The paths of the Keras `variables` holding a NaN or an infinity (a diverged training)."""
    bad = []
    for variable in variables:
        value = keras.ops.convert_to_numpy(variable)
        if np.issubdtype(value.dtype, np.floating) and not np.isfinite(value).all():
            bad.append(variable.path)
    return bad


def check_finite_weights(model, path):
    """Raises `ValueError` naming `path` when `model`'s weights are not all finite: a model
    that would translate everything to empty lines is refused by every command."""
    bad = non_finite_weights(model.weights)
    if bad:
        raise ValueError(f"{path} holds non-finite weights (NaN or inf in {len(bad)} of "
                         f"{len(model.weights)} weights, e.g. {bad[0]}): its training diverged; "
                         "train again with a lower --learning-rate")


def temporary_name(name):
    """The name `atomic_file.atomic_path` writes `name` under before renaming it."""
    return f".{name}"


@dataclasses.dataclass
class RunFolder:
    """A trained run, as `keras-nmt train` writes it.

    Attributes:
        path: the directory.
        config: its `config.json` as a dict (the fields of
        `keras_nmt.workshop.run.train_config.TrainConfig`;
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
        """Loads `path`; a clear error when it is not a finished run folder."""
        path = Path(path)
        needed = (CONFIG_FILE, MODEL_FILE, f"{TOKENIZERS_DIR}/source", f"{TOKENIZERS_DIR}/target")
        missing = [name for name in needed if not (path / name).exists()]
        if missing:
            raise FileNotFoundError(
                f"{path} is not a finished run folder (missing {', '.join(missing)}); "
                "train one with keras-nmt train --output-dir DIR"
            )
        warn_unrecorded(path, MODEL_FILE, f"if they are its own, `keras-nmt train --output-dir "
                        f"{path}` records them as they are now (an import: import it again)")
        check_tokenizers(path / TOKENIZERS_DIR,
                         read_provenance(path / PROVENANCE_FILE), path / PROVENANCE_FILE)
        register_models()
        model = keras.models.load_model(path / MODEL_FILE, compile=False)
        check_finite_weights(model, path / MODEL_FILE)
        tokenizers = [load_run_tokenizer(path / TOKENIZERS_DIR / side)
                      for side in ("source", "target")]
        check_model_binding(model, tokenizers, path / MODEL_FILE,
                            read_provenance(path / PROVENANCE_FILE), path / PROVENANCE_FILE)
        return cls(
            path=path,
            config=read_run_config(path / CONFIG_FILE),
            source_tokenizer=tokenizers[0],
            target_tokenizer=tokenizers[1],
            model=model,
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


def position_text(epoch, batch):
    """A backup position in words: `epoch` counts from 0, `batch` the batches done in it.

    A backup written at an epoch's end holds the next epoch's start, `(epoch + 1, 0)`: that is
    "the end of epoch 1", not "epoch 2, batch 0" (a one-epoch run has no epoch 2).

    Example:
        >>> position_text(0, 15), position_text(1, 0)
        ('epoch 1, batch 15', 'the end of epoch 1')
    """
    return f"the end of epoch {epoch}" if batch == 0 and epoch > 0 else \
        f"epoch {epoch + 1}, batch {batch}"
