"""A `Translator` written as a SavedModel: its signatures.

The lesson is one call: ``tf.saved_model.save(translator, path, signatures=...)``. The
`Translator` is a ``tf.Module`` whose ``tf.function`` s tokenize, decode and detokenize
(``serving_default`` greedy, ``beam_search``, ``attention``; `keras_nmt/inference/translator.py`
defines them), so the SavedModel holds the whole path from strings to strings and reloads with
plain TensorFlow and tensorflow-text. TensorFlow Serving's layout (``base_dir/name/version/``),
the facts `SavedTranslator` reads and a run's beside it, and a write whole or not at all,
readable by a server, are the workshop's (`keras_nmt.workshop.translators.export_translator`).

Example:
    >>> write_saved_model(translator, "saved_models/dates/1")
    >>> reloaded = tf.saved_model.load("saved_models/dates/1")
    >>> reloaded.signatures["serving_default"](tf.constant(["3rd of March 2021"]))
"""

import tensorflow as tf


def write_saved_model(translator, folder):
    """Writes the `Translator` `translator` as a SavedModel into `folder` (made when missing)."""
    tf.saved_model.save(translator, str(folder), signatures=translator.signatures())
