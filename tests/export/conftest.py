import pytest

from keras_nmt.workshop.translators.export_translator import export_translator
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
