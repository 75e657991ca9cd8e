"""A model's weights' fingerprint (`provenance.json`'s "weights") is the same after a save and a
reload, for every model and twin: the record binds `model.keras` without refusing its own."""

import keras
import pytest

from keras_nmt.models.registry import MODEL_NAMES, register_models
from keras_nmt.workshop.run.provenance import weights_fingerprint
from tests.export.helpers import make_model


@pytest.mark.parametrize("api", ["functional", "subclassed"])
@pytest.mark.parametrize("name", MODEL_NAMES)
def test_the_weights_fingerprint_survives_a_save_and_reload(name, api, tmp_path):
    model, _, _ = make_model(name, api)
    model.save(tmp_path / "model.keras")
    register_models()
    reloaded = keras.models.load_model(tmp_path / "model.keras", compile=False)
    assert weights_fingerprint(reloaded) == weights_fingerprint(model)
    reloaded.weights[0].assign(reloaded.weights[0].numpy() + 1.0)  # other weights: another
    assert weights_fingerprint(reloaded) != weights_fingerprint(model)
