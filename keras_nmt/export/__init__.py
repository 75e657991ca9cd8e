"""Export: the `Translator` (strings in, translations out, tokenizers inside) as a SavedModel,
and a Transformer run as a CTranslate2 model directory (`export_ctranslate2`, optional extra).

Opening translators (a run directory or an export) is `keras_nmt.inference`'s.

Example:
    >>> path = export_translator("runs/lstm")            # saved_models/lstm/1/
    >>> translator = keras_nmt.inference.open_translator(path)
    >>> translator.translate_batch(["3rd of March 2021"], beam_size=4)[0].text
"""

from keras_nmt._lazy import lazy_package

__all__ = lazy_package(
    __name__,
    {
        "export_ctranslate2": "keras_nmt.export.ctranslate2_export",
        "export_translator": "keras_nmt.export.export_translator",
        "next_version": "keras_nmt.export.saved_model",
    },
)
