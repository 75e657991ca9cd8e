"""The model configurations: one set of option names and defaults for models, training and
benchmarks."""

import dataclasses
import inspect

import pytest

from keras_nmt.models.registry import APIS, MODEL_NAMES, model_class
from keras_nmt.workshop.configurations import (
    MODEL_ARGUMENTS,
    OPTION_DEFAULTS,
    REFERENCE_CONFIGURATIONS,
    model_options,
    reference_configuration,
)
from keras_nmt.workshop.run.train_config import TrainConfig

FIELDS = {field.name: field.default for field in dataclasses.fields(TrainConfig)}


@pytest.mark.parametrize("name", MODEL_NAMES)
@pytest.mark.parametrize("api", APIS)
def test_model_arguments_are_the_constructor_arguments(name, api):
    parameters = list(inspect.signature(model_class(name, api).__init__).parameters)
    names = [p for p in parameters if p not in ("self", "name", "kwargs")]
    assert names == ["source_vocab_size", "target_vocab_size", *MODEL_ARGUMENTS[name]]


def test_every_option_is_a_train_config_field_with_its_default():
    assert {key for names in MODEL_ARGUMENTS.values() for key in names} == set(OPTION_DEFAULTS)
    for key, value in OPTION_DEFAULTS.items():
        assert FIELDS[key] == value, key
    assert (FIELDS["embedding_dim"], FIELDS["units"], FIELDS["d_model"], FIELDS["max_length"]) \
        == (128, 256, 128, 100)


def test_reference_configurations_set_train_config_fields():
    for name, models in REFERENCE_CONFIGURATIONS.items():
        for model, entry in models.items():
            assert set(entry["config"]) <= set(FIELDS), (name, model)
            assert entry["description"]


def test_benchmark_sizes():
    assert model_options("transformer", "benchmark") == {
        "num_layers": 3, "d_model": 256, "num_heads": 4, "ff_dim": 1024, "dropout": 0.1,
        "pre_norm": False, "shared_embeddings": False, "tied_output": False, "max_length": 256,
        "activation": "relu", "norm_epsilon": 1e-6, "position_layout": "interleaved",
        "scale_embeddings": True, "output_bias": False,
    }
    assert model_options("lstm", "benchmark") == {
        "embedding_dim": 256, "units": 512, "num_layers": 1, "dropout": 0.0,
        "reverse_source": False, "bidirectional": False,
    }
    assert model_options("bahdanau") == {"embedding_dim": 128, "units": 256, "dropout": 0.0,
                                         "attention_units": None, "deep_output": False}


def test_spa_eng_reference_and_errors():
    transformer = reference_configuration("spa-eng", "transformer")
    assert (transformer["label_smoothing"], transformer["warmup_steps"], transformer["d_model"]) \
        == (0.1, 4000, 256)
    assert reference_configuration("spa-eng", "lstm")["reverse_source"] is True
    transformer["d_model"] = 1  # a copy: the configurations do not change
    assert reference_configuration("spa-eng", "transformer")["d_model"] == 256
    with pytest.raises(ValueError, match="unknown reference configuration"):
        reference_configuration("nope", "lstm")
    with pytest.raises(ValueError, match="unknown model"):
        model_options("gru")
