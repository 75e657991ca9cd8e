"""Export: the `Translator` (strings in, translations out, tokenizers inside) as a SavedModel
(`saved_model.write_saved_model`).

TensorFlow Serving's versioned layout (`export_translator`, for a `Translator` or a run folder)
and the CTranslate2 export are the workshop's (`keras_nmt.workshop.translators`).

Example:
    >>> write_saved_model(translator, "saved_models/lstm/1")
    >>> reloaded = tf.saved_model.load("saved_models/lstm/1")
"""
