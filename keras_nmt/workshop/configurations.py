"""The models' options, training recipes and reference configurations, read from their cards.

Each model's card (`keras_nmt/models/<name>/__init__.py`, `ModelCard`) holds its own: the
arguments it takes, the options it brings, its recipe and its reference sizes. This module gives
them to the workshop by model and configuration name: the command line reads `MODEL_ARGUMENTS`
and `OPTION_DEFAULTS`, the JAX benchmark `TRAINING_RECIPES`, and the comparison presets, the
benchmarks (`keras-nmt benchmark`, also with `--backend jax`) and the tests' tiny models read
their model sizes from `REFERENCE_CONFIGURATIONS` (KerasHub keeps such data in `*_presets.py`;
here "preset" means only a comparison of `keras-nmt compare --preset`). `ModelOptions` gathers
every model option with its default, the model part of a `TrainConfig`: each is declared once,
`max_length` here (it bounds every model's sequences), the others in the card of the model that
brings them (`ModelCard.options`: `d_model` in `keras_nmt/models/transformer/__init__.py`), where
other models may take them too (the Luong model takes the LSTM's `units`).

Example:
    >>> model_options("transformer", "benchmark")["d_model"]
    256
    >>> reference_configuration("spa-eng", "transformer")["label_smoothing"]
    0.1
"""

import dataclasses

from keras_nmt.models.registry import ALIGNED_CARDS, CARDS
from keras_nmt.option_fields import check_options, option


@dataclasses.dataclass
class SequenceOptions:
    """The option every model obeys."""

    max_length: int = option(100, "longest sequence in tokens: longer training pairs are "
                             "dropped, longer inputs truncated when translating, and a "
                             "Transformer's or ConvS2S's position table has that many rows",
                             at_least=1)


# A dataclass takes its bases' fields from the last base to the first: each registered model's
# options in the registry's order, then `max_length`.
_BROUGHT = tuple(card.options for card in reversed(CARDS + ALIGNED_CARDS)
                 if card.options is not None)


@dataclasses.dataclass
class ModelOptions(SequenceOptions, *_BROUGHT):
    """The constructor arguments of every model, by training-option name, with their defaults.

    Each model takes the subset its card names (`ModelCard.arguments`);
    `keras_nmt.workshop.run.train_config.TrainConfig` extends this class with the options of a
    training run. Each field is also a flag of `keras-nmt train` (`keras_nmt.option_fields`).

    Example:
        >>> ModelOptions(units=512).units
        512
    """

    def __post_init__(self):
        check_options(self)


# The reference configurations every card gives sizes for, and who reads them.
REFERENCE_NAMES = {
    "spa-eng": "the reference translation run (`keras-nmt compare --preset spa-eng`, "
               "`keras-nmt train --configuration spa-eng/MODEL`)",
    "benchmark": "the speed measurements of `keras-nmt benchmark`",
    "benchmark-quick": "`keras-nmt benchmark --quick`: tiny sizes for tests and smoke runs",
    "benchmark-gpu": "`keras-nmt benchmark --backend jax --size gpu`",
    "benchmark-jax-quick": "`keras-nmt benchmark --backend jax --size quick`",
    "tiny": "the tests' inference-contract models (`tests/decoding/test_decoding_model.py`)",
}

# Every model option, by its training-option (`TrainConfig` field) name, with its default.
OPTION_DEFAULTS = dataclasses.asdict(ModelOptions())

# Constructor arguments of each model (besides the vocabulary sizes), in constructor order; the
# aligned models' (`registry.ALIGNED_MODEL_NAMES`) after the seq2seq ones'.
MODEL_ARGUMENTS = {model.name: model.arguments for model in CARDS + ALIGNED_CARDS}

# How each model is optimised (`ModelCard.recipe`).
TRAINING_RECIPES = {model.name: model.recipe for model in CARDS + ALIGNED_CARDS}

# name -> model -> {"description": one line, "config": the `TrainConfig` fields it sets (model
# options and, where the configuration has its own, training-recipe fields)}; the names and who
# reads each: `REFERENCE_NAMES`. The seq2seq models' only (the benchmarks and the translation
# comparisons).
REFERENCE_CONFIGURATIONS = {
    name: {model.name: model.sizes[name] for model in CARDS} for name in REFERENCE_NAMES
}

def _reference(name, model):
    if name not in REFERENCE_CONFIGURATIONS:
        raise ValueError(f"unknown reference configuration {name!r}; choose from "
                         f"{', '.join(REFERENCE_CONFIGURATIONS)}")
    models = REFERENCE_CONFIGURATIONS[name]
    if model not in models:
        raise ValueError(f"reference configuration {name!r} has no model {model!r}; choose "
                         f"from {', '.join(models)}")
    return models[model]


def reference_configuration(name, model):
    """The `TrainConfig` fields that reference configuration `name` sets for `model` (a copy)."""
    return dict(_reference(name, model)["config"])


def model_options(model, reference=None):
    """Every constructor argument of `model`: the defaults, or reference configuration `reference`.

    Args:
        model: a registered model's name.
        reference: optional name of a `REFERENCE_CONFIGURATIONS` entry.

    Returns:
        `{argument: value}` for the arguments in `MODEL_ARGUMENTS[model]`.
    """
    if model not in MODEL_ARGUMENTS:
        raise ValueError(f"unknown model {model!r}; choose from {tuple(MODEL_ARGUMENTS)}")
    chosen = reference_configuration(reference, model) if reference else {}
    return {key: chosen.get(key, OPTION_DEFAULTS[key]) for key in MODEL_ARGUMENTS[model]}
