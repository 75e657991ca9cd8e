"""The Python API of `Translator` over a reloaded SavedModel (no keras_nmt model code needed)."""

import json
from pathlib import Path

import tensorflow as tf

from keras_nmt.decoding import length_order, restore_order
from keras_nmt.export.export_translator import METADATA_FILE
from keras_nmt.export.translator import check_options, results_from_outputs, warn_long_inputs


class SavedTranslator:
    """A SavedModel written by `export_translator`, with `Translator`'s `translate_batch`.

    Greedy decoding, beam search and attention go through the exported signatures (what a
    server runs); sampling is not exported and raises `ValueError`.

    Args:
        path: the version directory (holding `saved_model.pb`).
    """

    def __init__(self, path):
        self.path = Path(path)
        self.module = tf.saved_model.load(str(self.path))
        self.signatures = self.module.signatures
        metadata = self.path / "assets.extra" / METADATA_FILE
        info = json.loads(metadata.read_text()) if metadata.exists() else {}
        self.max_source_length = info.get("max_source_length")
        self.max_target_length = info.get("max_target_length")
        self.max_beam_size = info.get("max_beam_size", 8)
        self.has_attention = info.get("has_attention")
        self.metadata = info

    def translate(self, text):
        """Greedy translation of a `tf.string (batch,)` tensor (the `serving_default` outputs)."""
        return self.signatures["serving_default"](text=tf.convert_to_tensor(text, tf.string))

    def translate_texts(self, texts, batch_size=64):
        """Translates a Python list of strings in batches (greedy); returns a list of strings."""
        return [r.text for r in self.translate_batch(list(texts), batch_size=batch_size)]

    def translate_batch(
        self,
        texts,
        *,
        beam_size=1,
        length_penalty=0.0,
        n_best=1,
        sample=False,
        temperature=1.0,
        top_k=0,
        top_p=1.0,
        seed=0,
        with_attention=False,
        batch_size=64,
    ):
        """As `Translator.translate_batch`; `sample=True` raises (not in the SavedModel)."""
        if sample:
            raise ValueError(
                "sampling is not exported to the SavedModel (only greedy, beam search and "
                "attention are); translate with the run directory to sample"
            )
        check_options(beam_size, n_best, sample, with_attention, self.max_beam_size)
        order = length_order(texts)  # batches of similar lengths; results in input order
        texts = [texts[i] for i in order]
        results = []
        for start in range(0, len(texts), batch_size):
            text = tf.constant(list(texts[start : start + batch_size]), dtype=tf.string)
            if with_attention:
                outputs, kind = self.signatures["attention"](text=text), "attention"
            elif beam_size > 1:
                outputs = self.signatures["beam_search"](
                    text=text,
                    beam_size=tf.constant(beam_size, tf.int32),
                    length_penalty=tf.constant(length_penalty, tf.float32),
                )
                kind = "beam"
            else:
                outputs, kind = self.signatures["serving_default"](text=text), "greedy"
            outputs = {key: value.numpy() for key, value in outputs.items()}
            results.extend(results_from_outputs(outputs, kind, n_best))
        return restore_order(results, order)

    def warn_if_truncated(self, texts, warn):
        """Calls `warn(message)` for each text longer than the model's maximum source length."""
        if self.max_source_length is not None and hasattr(self.module, "source_lengths"):
            warn_long_inputs(self.module.source_lengths, self.max_source_length, texts, warn)


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
