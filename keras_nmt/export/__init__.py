"""Export: the `Translator` (strings in, translations out, tokenizers inside) as a SavedModel
(`saved_model.save_translator`).

A run folder's export and the CTranslate2 one are the workshop's
(`keras_nmt.workshop.translators`).

Example:
    >>> path = save_translator(translator, "saved_models", name="lstm")  # saved_models/lstm/1/
    >>> reloaded = tf.saved_model.load(str(path))
"""
