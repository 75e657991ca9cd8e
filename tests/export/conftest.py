import pytest

from keras_nmt.workshop.translators.export_translator import export_translator
from keras_nmt.workshop.translators.saved_translator import SavedTranslator
from tests.built_once import built_once
from tests.export.helpers import make_translator


@pytest.fixture(scope="session")
def lstm_export(tmp_path_factory):
    """An untrained lstm/functional Translator and its SavedModel (max beam 2, alphas 0, 0.6).

    The SavedModel is exported once for all workers (`built_once`); each worker makes its own
    Translator, with the same seeded weights.
    """
    translator = make_translator("lstm", "functional")
    folder = built_once(tmp_path_factory, "lstm_export",
                        lambda folder: export_translator(translator, folder, name="lstm"))
    return translator, folder / "lstm" / "1"


@pytest.fixture(scope="session")
def lstm_saved(lstm_export):
    """`lstm_export`'s SavedModel loaded once per worker as a `SavedTranslator` (each load and
    its first calls cost seconds), for the tests that only read and run it."""
    return SavedTranslator(lstm_export[1])
