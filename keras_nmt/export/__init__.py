"""Export: the `Translator` (strings in, translations out, tokenizers inside) as a SavedModel.

Example:
    >>> path = export_translator("runs/lstm")            # saved_models/lstm/1/
    >>> translator = open_translator(path)               # or open_translator("runs/lstm")
    >>> translator.translate_batch(["3rd of March 2021"], beam_size=4)[0].text
"""

from pathlib import Path

from keras_nmt.export.export_translator import export_translator, next_version
from keras_nmt.export.saved_translator import SavedTranslator, find_saved_model
from keras_nmt.export.translator import TranslationResult, Translator


def open_translator(path):
    """A translator from a run directory or a SavedModel directory.

    Args:
        path: a run directory (`config.json`, `model.keras`, tokenizers), a SavedModel version
            directory (`saved_model.pb`), or a model directory holding versions (the highest is
            used).

    Returns:
        A `Translator` (run directory) or a `SavedTranslator`; both offer `translate_batch`,
        `translate_texts` and `warn_if_truncated`.
    """
    path = Path(path)
    saved = find_saved_model(path)
    if saved is not None:
        return SavedTranslator(saved)
    if not path.exists():
        raise FileNotFoundError(f"{path} does not exist")
    from keras_nmt.training.run_directory import RunDirectory

    return RunDirectory.load(path).translator()


__all__ = [
    "SavedTranslator",
    "TranslationResult",
    "Translator",
    "export_translator",
    "find_saved_model",
    "next_version",
    "open_translator",
]
