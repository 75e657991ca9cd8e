"""Inference: the `Translator` (strings in, translations out), its SavedModel-backed twin, and
the run directory format they are opened from.

Training (callbacks, final scores), evaluation, spelling correction, export and the apps all
translate through this package; it imports only `text`, `models` and `decoding` (the layering
is in docs/architecture.md).

Example:
    >>> translator = open_translator("runs/lstm")        # or a SavedModel directory
    >>> translator.translate_batch(["3rd of March 2021"], beam_size=4)[0].text
"""

from pathlib import Path

from keras_nmt.inference.batch_translator import BatchTranslator
from keras_nmt.inference.ctranslate2_translator import CTranslate2Translator, is_ctranslate2_export
from keras_nmt.inference.run_directory import RunDirectory
from keras_nmt.inference.saved_translator import SavedTranslator, find_saved_model
from keras_nmt.inference.translation_result import TranslationResult
from keras_nmt.inference.translator import Translator


def open_translator(path, weights=None):
    """A translator from a run directory or a SavedModel directory.

    Args:
        path: a run directory (`config.json`, `model.keras`, tokenizers), a SavedModel version
            directory (`saved_model.pb`), a model directory holding versions (the highest is
            used), or a CTranslate2 export (`CTranslate2Translator`).
        weights: optional `.weights.h5` file loaded into a run directory's model in place of
            its trained weights (e.g. ``budget.weights.h5``: where a time budget ran out).

    Returns:
        A `Translator` (run directory) or a `SavedTranslator`; both offer `translate_batch`,
        `translate_texts` and `warn_if_truncated` (`BatchTranslator`).

    Raises:
        ValueError: ``weights`` for a SavedModel, or weights of another model.
    """
    path = Path(path)
    if is_ctranslate2_export(path):  # keras_nmt.export.export_ctranslate2
        if weights is not None:
            raise ValueError(f"{path} is a CTranslate2 export: its weights are fixed")
        return CTranslate2Translator(path)
    saved = find_saved_model(path)
    if saved is not None:
        if weights is not None:
            raise ValueError(f"{path} is a SavedModel: its weights are fixed (weights are for "
                             "run directories)")
        return SavedTranslator(saved)
    if not path.exists():
        raise FileNotFoundError(f"{path} does not exist")
    run = RunDirectory.load(path)
    if weights is not None:
        if not Path(weights).is_file():
            raise FileNotFoundError(f"{weights} does not exist")
        run.model.load_weights(weights)
    return run.translator()


__all__ = [
    "BatchTranslator",
    "CTranslate2Translator",
    "RunDirectory",
    "SavedTranslator",
    "TranslationResult",
    "Translator",
    "find_saved_model",
    "open_translator",
]
