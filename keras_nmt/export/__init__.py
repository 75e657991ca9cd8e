"""Export: the `Translator` (strings in, translations out, tokenizers inside) as a SavedModel
(`saved_model.write_saved_model`).

TensorFlow Serving's versioned layout (`save_translator`), a run folder's export and the
CTranslate2 one are the workshop's (`keras_nmt.workshop.translators`).

Example:
    >>> write_saved_model(translator, "saved_models/lstm/1")
    >>> reloaded = tf.saved_model.load("saved_models/lstm/1")
"""
