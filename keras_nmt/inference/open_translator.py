"""`open_translator`: one call opens any translator the project writes."""

from pathlib import Path

from keras_nmt.inference.run_directory import RunDirectory
from keras_nmt.inference.saved_translator import SavedTranslator, find_saved_model


def open_translator(path, weights=None):
    """A translator from a run directory or a SavedModel directory.

    Args:
        path: a run directory (`config.json`, `model.keras`, tokenizers), a SavedModel version
            directory (`saved_model.pb`), or a model directory holding versions (the highest is
            used).
        weights: optional `.weights.h5` file loaded into a run directory's model in place of
            its trained weights (e.g. ``budget.weights.h5``: where a time budget ran out).

    Returns:
        A `Translator` (run directory) or a `SavedTranslator`; both offer `translate_batch`,
        `translate_texts` and `warn_if_truncated` (`BatchTranslator`).

    Raises:
        ValueError: ``weights`` for a SavedModel, or weights of another model.
    """
    path = Path(path)
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
