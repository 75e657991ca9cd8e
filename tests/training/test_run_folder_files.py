"""Every file and folder a training writes is named by `run_folder` and documented."""

import re
from pathlib import Path

from keras_nmt.workshop.run import run_folder
from keras_nmt.workshop.run.train_config import TrainConfig
from keras_nmt.workshop.run.trainer import train
from tests.fixed_precision import FLOAT32

ROOT = Path(__file__).resolve().parents[2]


def _documented_section(text, heading):
    section = text.split(heading, 1)[1]
    return section.split("\n## ", 1)[0]


def test_every_file_a_run_writes_is_named_and_documented(tmp_path):
    # Backups, checkpoint averaging and a time budget that runs out: all the optional files.
    config = TrainConfig(
        train_size=64, valid_size=8, units=8, embedding_dim=4, batch_size=16, epochs=1,
        backup_every=2, validation_sentences=4, samples=0, verbose=0, time_budget=1e-7,
        average_checkpoints=2, average_every=1, precision=FLOAT32, output=str(tmp_path / "run"),
    )
    train(config, print_fn=lambda *_: None)
    run = Path(config.output)
    written = {path.name for path in run.iterdir()}
    assert written == {
        "config.json", "data.json", "tokenizers", "provenance.json", "model.keras",
        "history.json", "backup",
        "precision.json", "finished.json", "logs", "average", "budget.weights.h5",
        "budget.json",
    }
    assert written <= set(run_folder.RUN_FOLDER_NAMES)
    assert {path.name for path in (run / "backup").iterdir()} == {
        run_folder.BACKUP_STATE_FILE}
    assert {path.name for path in (run / "tokenizers").iterdir()} == {"source", "target"}
    # Each name the module gives is in its docstring and in docs/architecture.md's section.
    docs = _documented_section((ROOT / "docs" / "architecture.md").read_text(),
                               "## Run folder")
    for name in run_folder.RUN_FOLDER_NAMES:
        assert re.search(rf"^    {re.escape(name)}\b", run_folder.__doc__, re.M), name
        assert re.search(rf"^run/{re.escape(name)}\b", docs, re.M), name
    assert f"run/backup/{run_folder.BACKUP_STATE_FILE}" in docs
    assert f"    backup/{run_folder.BACKUP_STATE_FILE}" in run_folder.__doc__
