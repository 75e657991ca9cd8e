"""Inference: the `Translator` (strings in, translations out), its SavedModel-backed twin, and
the run directory format they are opened from.

Training (callbacks, final scores), evaluation, spelling correction, export and the apps all
translate through this package; it imports only `text`, `models` and `decoding` (the layering
is in docs/architecture.md).

Example:
    >>> translator = open_translator("runs/lstm")        # or a SavedModel directory
    >>> translator.translate_batch(["3rd of March 2021"], beam_size=4)[0].text
"""

from keras_nmt._lazy import lazy_package

__all__ = lazy_package(
    __name__,
    {
        "BatchTranslator": "keras_nmt.inference.batch_translator",
        "CTranslate2Translator": "keras_nmt.inference.ctranslate2_translator",
        "ModelData": "keras_nmt.inference.open_translator",
        "RunDirectory": "keras_nmt.inference.run_directory",
        "SavedTranslator": "keras_nmt.inference.saved_translator",
        "TranslationResult": "keras_nmt.inference.translation_result",
        "Translator": "keras_nmt.inference.translator",
        "find_saved_model": "keras_nmt.inference.saved_translator",
        "model_data": "keras_nmt.inference.open_translator",
        "open_translator": "keras_nmt.inference.open_translator",
        "confidence": "keras_nmt.inference.word_alignment",
        "word_alignment": "keras_nmt.inference.word_alignment",
    },
)
