"""The model classes built without arguments are the models `keras-nmt train` trains."""

import inspect

import pytest

from keras_nmt.models.registry import APIS, MODEL_NAMES, model_class
from keras_nmt.workshop.configurations import MODEL_ARGUMENTS, OPTION_DEFAULTS


@pytest.mark.parametrize("name", MODEL_NAMES)
@pytest.mark.parametrize("api", APIS)
def test_constructor_defaults_are_the_training_defaults(name, api):
    parameters = inspect.signature(model_class(name, api)).parameters
    defaults = {argument: parameters[argument].default for argument in MODEL_ARGUMENTS[name]}
    assert defaults == {argument: OPTION_DEFAULTS[argument] for argument in MODEL_ARGUMENTS[name]}


def test_the_transformer_defaults_are_the_small_training_model():
    parameters = inspect.signature(model_class("transformer", "functional")).parameters
    assert [parameters[key].default for key in ("num_layers", "d_model", "ff_dim", "dropout",
                                                "max_length")] == [1, 128, 512, 0.0, 100]
