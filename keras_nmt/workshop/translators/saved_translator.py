"""The Python API of `Translator` over a reloaded SavedModel (no keras_nmt model code needed)."""

import json
from pathlib import Path

import tensorflow as tf
import tensorflow_text  # noqa: F401  (registers the tf-text ops the exported tokenizers use)

from keras_nmt.inference.batch_translator import BatchTranslator
from keras_nmt.workshop.quiet_start import quiet_native_output
from keras_nmt.workshop.translators.export_translator import METADATA_FILE
from keras_nmt.workshop.translators.served_strategies import check_served


class SavedTranslator(BatchTranslator):
    """A SavedModel written by `export_translator`, with `Translator`'s `translate_batch`.

    Greedy decoding and attention go through the exported signatures (what a server runs), beam
    search through the exported function of the one beam size asked for (what the `beam_search`
    signature runs for it); a strategy the SavedModel does not export (sampling) raises
    `ValueError`.

    Args:
        path: the version directory (holding `saved_model.pb`).
    """

    export = "savedmodel"

    def __init__(self, path):
        self.path = Path(path)
        with quiet_native_output():  # SentencePiece's `normalizer.cc LOG(INFO)` lines
            self.module = tf.saved_model.load(str(self.path))
        self.signatures = self.module.signatures
        self.serving_default = self.signatures["serving_default"]
        self.attention = self.signatures["attention"]
        # Exports written before the `attention` signature returned each translation's
        # log-probability have no `score` there: their confidence is unknown, not 0.
        self.attention_scores = "score" in self.attention.structured_outputs
        self.beam_search = self.signatures["beam_search"]
        self.beam_functions = self.module.beam_functions
        self.source_lengths = getattr(self.module, "source_lengths", None)
        metadata = self.path / "assets.extra" / METADATA_FILE
        info = json.loads(metadata.read_text()) if metadata.exists() else {}
        self.max_source_length = info.get("max_source_length")
        self.max_target_length = info.get("max_target_length")
        self.max_beam_size = info.get("max_beam_size", 8)
        self.has_attention = info.get("has_attention")
        self.metadata = info

    def check_options(self, options):
        """Raises `ValueError` for a strategy the SavedModel does not serve, then as
        `BatchTranslator.check_options`."""
        check_served(options.chosen_strategy, self.export)
        super().check_options(options)


def find_saved_model(path):
    """The SavedModel directory at `path`: itself, or its highest version, or `None`."""
    path = Path(path)
    if (path / "saved_model.pb").exists():
        return path
    if not path.is_dir():
        return None
    versions = sorted(
        int(p.name) for p in path.iterdir() if p.name.isdigit() and (p / "saved_model.pb").exists()
    )
    return path / str(versions[-1]) if versions else None
