"""The Python API a notebook user guesses: open a run folder, call the translator on strings."""

import pytest

import keras_nmt
from tests.export.helpers import SOURCES, make_run_folder

pytestmark = pytest.mark.tensorflow


def test_a_translator_is_called_on_a_list_of_strings(tmp_path):
    translator = keras_nmt.open_translator(make_run_folder(tmp_path / "run", "luong"))
    outputs = translator(SOURCES)
    assert outputs == [r.text for r in translator.translate_batch(SOURCES)]
    assert translator(SOURCES[0]) == outputs[0]
    assert translator(SOURCES, beam_size=2) == [
        r.text for r in translator.translate_batch(SOURCES, beam_size=2)]


def test_build_model_takes_keyword_arguments_and_refuses_unknown_ones():
    model = keras_nmt.build_model("luong", "functional", 20, 30, units=8, embedding_dim=4)
    assert (model.get_config()["units"], model.get_config()["embedding_dim"]) == (8, 4)
    with pytest.raises(ValueError, match="takes no d_model"):
        keras_nmt.build_model("luong", "functional", 20, 30, d_model=8)
