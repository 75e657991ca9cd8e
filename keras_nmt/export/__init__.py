"""Export: the `Translator` (strings in, translations out, tokenizers inside) as a SavedModel,
and a Transformer run as a CTranslate2 model directory (`export_ctranslate2`, optional extra).

Opening translators (a run folder or an export) is `keras_nmt.inference`'s.

Example:
    >>> path = export_translator("runs/lstm")            # saved_models/lstm/1/
    >>> translator = keras_nmt.workshop.translators.open_translator(path)
    >>> translator.translate_batch(["3rd of March 2021"], beam_size=4)[0].text
"""
