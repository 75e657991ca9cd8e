"""Writes the training history to JSON after every epoch, so a crash loses nothing."""

import json
from pathlib import Path

import keras

from keras_nmt.atomic_file import write_json


class HistoryWriter(keras.callbacks.Callback):
    """Appends each epoch's logs to `path` (a JSON list of `{"epoch": i, ...}` records).

    A resumed run replays its interrupted epoch: records of epochs at or after the one being
    written are replaced, never duplicated.

    Args:
        path: the JSON file, e.g. `RUN_DIR/history.json`.
    """

    def __init__(self, path):
        super().__init__()
        self.path = Path(path)

    def records(self):
        return json.loads(self.path.read_text()) if self.path.exists() else []

    def as_history(self):
        """The records as Keras' `History.history`: `{metric: [value per epoch]}`."""
        history = {}
        for record in self.records():
            for key, value in record.items():
                if key != "epoch":
                    history.setdefault(key, []).append(value)
        return history

    def on_epoch_end(self, epoch, logs=None):
        records = [r for r in self.records() if r["epoch"] < epoch]
        records.append({"epoch": epoch, **{k: float(v) for k, v in (logs or {}).items()}})
        write_json(self.path, records, indent=1)
