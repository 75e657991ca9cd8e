import pytest

from keras_nmt.export import export_translator
from tests.export.helpers import make_translator


@pytest.fixture(scope="session")
def lstm_export(tmp_path_factory):
    """An untrained lstm/functional Translator and its SavedModel (max beam 2, alphas 0, 0.6)."""
    translator = make_translator("lstm", "functional")
    path = export_translator(translator, tmp_path_factory.mktemp("saved"), name="lstm")
    return translator, path
