"""A `Translator` written as a SavedModel: its signatures.

The lesson is one call: ``tf.saved_model.save(translator, path, signatures=...)``. The
`Translator` is a ``tf.Module`` whose ``tf.function`` s tokenize, decode and detokenize
(``serving_default`` greedy, ``beam_search``, ``attention``; `keras_nmt/inference/translator.py`
defines them), so the SavedModel holds the whole path from strings to strings and reloads with
plain TensorFlow and tensorflow-text. TensorFlow Serving's layout (``base_dir/name/version/``)
and a write whole or not at all are the workshop's (`keras_nmt.workshop.translators.export_translator`).

Example:
    >>> write_saved_model(translator, "saved_models/dates/1")
    >>> reloaded = tf.saved_model.load("saved_models/dates/1")
    >>> reloaded.signatures["serving_default"](tf.constant(["3rd of March 2021"]))
"""

import json
import os
from pathlib import Path

import tensorflow as tf

from keras_nmt.inference.translator import METADATA_FILE


def _make_readable(directory):
    """The usual 0755 folders and 0644 files (mkdtemp makes 0700, unreadable to a server)."""
    for root, _, files in os.walk(directory):
        os.chmod(root, 0o755)
        for name in files:
            os.chmod(os.path.join(root, name), 0o644)


def write_saved_model(translator, folder, metadata=None, write_extra=None):
    """Writes `translator` as a SavedModel into the folder `folder` (made when missing).

    The lesson's one call, ``tf.saved_model.save``, with the `Translator`'s signatures, plus
    ``assets.extra/METADATA_FILE`` (the translator's `metadata()` and `metadata`) and whatever
    `write_extra` writes there; every folder 0755 and file 0644, so a server can read them.
    Nothing here is atomic: the workshop's folder writer (`export_translator`) writes into a
    hidden folder and moves it into place.

    Args:
        translator: a `keras_nmt.inference.translator.Translator`.
        folder: the folder to write.
        metadata: more entries for `assets.extra/METADATA_FILE`.
        write_extra: a function called with the `assets.extra` folder to write more files there.
    """
    folder = Path(folder)
    tf.saved_model.save(translator, str(folder), signatures=translator.signatures())
    extra = folder / "assets.extra"
    extra.mkdir(exist_ok=True)
    (extra / METADATA_FILE).write_text(
        json.dumps({**translator.metadata(), **(metadata or {})}, indent=2) + "\n")
    if write_extra is not None:
        write_extra(extra)
    _make_readable(folder)
