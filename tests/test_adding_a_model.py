"""Every registered model is in each table that CONTRIBUTING.md's checklist names."""

import pytest

from keras_nmt.benchmarks.flops import forward_flops
from keras_nmt.models.configurations import (
    MODEL_ARGUMENTS,
    REFERENCE_CONFIGURATIONS,
    TRAINING_RECIPES,
    model_options,
)
from keras_nmt.models.registry import MODEL_NAMES


def test_the_model_tables_list_exactly_the_registered_models():
    assert list(MODEL_ARGUMENTS) == list(MODEL_NAMES)
    assert list(TRAINING_RECIPES) == list(MODEL_NAMES)
    for name, models in REFERENCE_CONFIGURATIONS.items():
        assert list(models) == list(MODEL_NAMES), name


@pytest.mark.parametrize("name", MODEL_NAMES)
def test_every_model_has_a_flop_counter(name):
    config = {"source_vocab_size": 30, "target_vocab_size": 40, **model_options(name)}
    assert forward_flops(name, config, [3, 5], [4, 2]) > 0
