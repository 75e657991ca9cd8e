"""Each model's options, training recipe and named reference configurations, as data.

The one owner of what a model can be given (KerasHub keeps such data in `*_presets.py`; here
"preset" means only a comparison of `keras-nmt compare --preset`): `TrainConfig` extends
`ModelOptions` (the defaults, `OPTION_DEFAULTS`), `build_model` and `ConstructorConfig` pass and
save the arguments named in `MODEL_ARGUMENTS`, `compile_model` follows `TRAINING_RECIPES`, and the
comparison presets, the benchmarks (`keras-nmt benchmark`, also with `--backend jax`) and the
tests' tiny models read their model sizes from `REFERENCE_CONFIGURATIONS`.

Example:
    >>> model_options("transformer", "benchmark")["d_model"]
    256
    >>> reference_configuration("spa-eng", "transformer")["label_smoothing"]
    0.1
"""

import dataclasses

from keras_nmt.models.model_options import ModelOptions

# Every model option, by its training-option (`TrainConfig` field) name, with its default.
OPTION_DEFAULTS = dataclasses.asdict(ModelOptions())

# Constructor arguments of each model (besides the vocabulary sizes), in constructor order.
_RECURRENT = ("embedding_dim", "units", "num_layers", "dropout", "reverse_source", "bidirectional")
MODEL_ARGUMENTS = {
    "lstm": _RECURRENT,
    "luong": (*_RECURRENT, "attention_score", "input_feeding"),
    "bahdanau": ("embedding_dim", "units", "dropout", "attention_units", "deep_output"),
    "transformer": (
        "num_layers",
        "d_model",
        "num_heads",
        "ff_dim",
        "dropout",
        "pre_norm",
        "shared_embeddings",
        "tied_output",
        "max_length",
        "activation",
        "norm_epsilon",
        "position_layout",
        "scale_embeddings",
        "output_bias",
    ),
    # The aligned model (`registry.ALIGNED_MODEL_NAMES`).
    "ctc": ("embedding_dim", "units", "num_layers", "dropout", "upsampling"),
}

# How each model is optimised: the learning-rate schedule (`constant`: `TrainConfig.learning_rate`;
# `inverse_sqrt`: warm-up then 1/sqrt(step) scaled by d_model^-0.5, Vaswani et al. 2017, §5.3)
# and the Adam arguments besides Keras' defaults.
TRAINING_RECIPES = {
    "lstm": {"schedule": "constant", "adam": {}},
    "luong": {"schedule": "constant", "adam": {}},
    "bahdanau": {"schedule": "constant", "adam": {}},
    "transformer": {
        "schedule": "inverse_sqrt",
        "adam": {"beta_1": 0.9, "beta_2": 0.98, "epsilon": 1e-9},
    },
    "ctc": {"schedule": "constant", "adam": {}},
}

# The training option each schedule reads: a value given for the other one would be ignored.
SCHEDULE_OPTIONS = {"constant": ("learning_rate",), "inverse_sqrt": ("warmup_steps",)}


def learning_rate_schedule(model, fine_tuning=False):
    """The schedule `model` trains with: its recipe's, constant when fine-tuning (a warm-up is
    for weights that start random).

    Example:
        >>> learning_rate_schedule("transformer"), learning_rate_schedule("transformer", True)
        ('inverse_sqrt', 'constant')
    """
    return "constant" if fine_tuning else TRAINING_RECIPES[model]["schedule"]


def options_read_by(model, fine_tuning=False):
    """The model and schedule options training `model` reads: its constructor's arguments,
    `max_length` (which also limits the data) and its schedule's (`SCHEDULE_OPTIONS`)."""
    return {*MODEL_ARGUMENTS[model], "max_length",
            *SCHEDULE_OPTIONS[learning_rate_schedule(model, fine_tuning)]}


# No dropout in the spa-eng references: the 2-5 epochs that 45 minutes buy on a 2-core CPU do not
# overfit, and without dropout every attention model learned faster per epoch (docs/decisions.md).
_SPA_ENG_RECURRENT = {"embedding_dim": 256, "units": 512, "dropout": 0.0}
# Checkpoint averaging (`TrainConfig.average_checkpoints`; Vaswani et al. 2017, §6.1): the mean
# of the last weights and 4 kept 250 optimizer steps apart, spanning the last 1,000 steps.
CHECKPOINT_AVERAGE = {"average_checkpoints": 5, "average_every": 250}
# The benchmark's sizes: a 3+3-layer Transformer of width 256 with dropout 0.1 and
# positions for 256 tokens, and one layer per side for the recurrent models.
_BENCHMARK_RECURRENT = {"embedding_dim": 256, "units": 512, "num_layers": 1}
_BENCHMARK_TRANSFORMER = {"num_layers": 3, "d_model": 256, "num_heads": 4, "ff_dim": 1024,
                          "dropout": 0.1, "max_length": 256}
_QUICK_RECURRENT = {"embedding_dim": 16, "units": 32, "num_layers": 1}
_QUICK_TRANSFORMER = {"num_layers": 1, "d_model": 32, "num_heads": 2, "ff_dim": 64,
                      "dropout": 0.1, "max_length": 256}
_RECURRENT_NAMES = ("lstm", "luong", "bahdanau")

# name -> model -> {"description": one line, "config": the `TrainConfig` fields it sets (model
# options and, where the configuration has its own, training-recipe fields)}.
REFERENCE_CONFIGURATIONS = {
    # The reference translation run (`keras-nmt compare --preset spa-eng`).
    "spa-eng": {
        # One layer per side, not two: 1.46x the target tokens/s and ahead per epoch as well
        # (docs/decisions.md).
        "lstm": {
            "description": "1-layer LSTM, reversed source (Sutskever et al. 2014), no dropout",
            "config": {**_SPA_ENG_RECURRENT, "num_layers": 1, "reverse_source": True},
        },
        # Luong's `general` score collapses onto one source position early; the additive
        # `concat` score stays soft; one layer per side learned faster per epoch and per minute,
        # as for the LSTM (docs/decisions.md).
        "luong": {
            "description": "1-layer LSTM + Luong concat attention, no dropout",
            "config": {**_SPA_ENG_RECURRENT, "num_layers": 1, "attention_score": "concat"},
        },
        "bahdanau": {
            "description": "bidirectional-LSTM encoder + additive attention, no dropout",
            "config": dict(_SPA_ENG_RECURRENT),
        },
        # Averaging led the last weights of the same run by 3-9 validation BLEU after each of
        # epochs 2-9, behind only in the warm-up's epoch 1 (docs/decisions.md).
        "transformer": {
            "description": "3+3-layer Transformer, d_model 256 (base recipe, smaller), no "
                           "dropout, the mean of its last 5 weights 250 steps apart",
            "config": {"num_layers": 3, "d_model": 256, "num_heads": 4, "ff_dim": 1024,
                       "dropout": 0.0, "label_smoothing": 0.1, "warmup_steps": 4000,
                       **CHECKPOINT_AVERAGE},
        },
    },
    # The speed measurements of `keras-nmt benchmark`.
    "benchmark": {
        **{
            name: {"description": "embedding 256, units 512, one layer per side",
                   "config": dict(_BENCHMARK_RECURRENT)}
            for name in _RECURRENT_NAMES
        },
        "transformer": {"description": "d_model 256, 3+3 layers, 4 heads, ff 1024",
                        "config": dict(_BENCHMARK_TRANSFORMER)},
    },
    # `keras-nmt benchmark --quick`: tiny sizes for tests and smoke runs.
    "benchmark-quick": {
        **{
            name: {"description": "embedding 16, units 32", "config": dict(_QUICK_RECURRENT)}
            for name in _RECURRENT_NAMES
        },
        "transformer": {"description": "d_model 32, 1+1 layers, 2 heads, ff 64",
                        "config": dict(_QUICK_TRANSFORMER)},
    },
    # `keras-nmt benchmark --backend jax --size gpu` (its `--size reference` is "benchmark").
    "benchmark-gpu": {
        **{
            name: {"description": "embedding 256, units 512, one layer per side",
                   "config": dict(_BENCHMARK_RECURRENT)}
            for name in _RECURRENT_NAMES
        },
        "transformer": {"description": "d_model 512, 6+6 layers, 8 heads, ff 2048 (base)",
                        "config": {**_BENCHMARK_TRANSFORMER, "num_layers": 6, "d_model": 512,
                                   "num_heads": 8, "ff_dim": 2048}},
    },
    # `keras-nmt benchmark --backend jax --size quick`: smoke-run sizes.
    "benchmark-jax-quick": {
        **{
            name: {"description": "embedding 8, units 16",
                   "config": {"embedding_dim": 8, "units": 16, "num_layers": 1}}
            for name in _RECURRENT_NAMES
        },
        "transformer": {"description": "d_model 16, 1+1 layers, 2 heads, ff 32",
                        "config": {**_QUICK_TRANSFORMER, "d_model": 16, "ff_dim": 32}},
    },
    # The tests' tiny models (`tests/decoding/test_decoding_model.py`: the inference contract).
    "tiny": {
        "lstm": {"description": "embedding 8, units 8",
                 "config": {"embedding_dim": 8, "units": 8, "num_layers": 1}},
        "luong": {"description": "embedding 8, units 8",
                  "config": {"embedding_dim": 8, "units": 8, "num_layers": 1}},
        "bahdanau": {"description": "embedding 8, units 8, attention units 8",
                     "config": {"embedding_dim": 8, "units": 8, "attention_units": 8}},
        "transformer": {"description": "d_model 8, 1+1 layers, 2 heads, ff 16, 12 positions",
                        "config": {"num_layers": 1, "d_model": 8, "num_heads": 2, "ff_dim": 16,
                                   "max_length": 12}},
    },
}


# The options of a reference configuration that are not its models': data, tokens, lengths,
# budget. `keras-nmt train --configuration NAME/MODEL` and the comparison of that name share them.
REFERENCE_DEFAULTS = {
    "spa-eng": {
        "source_column": 1,
        "tokenizer": "subword",
        "vocab_size": 8000,
        "max_length": 64,
        "epochs": 1000,
        "time_budget": 45.0,
    },
}


def configuration_names():
    """`NAME/MODEL` of every trainable reference configuration, e.g. ``spa-eng/transformer``."""
    return tuple(f"{name}/{model}" for name in REFERENCE_DEFAULTS
                 for model in REFERENCE_CONFIGURATIONS[name])


def configuration_fields(configuration):
    """The `TrainConfig` fields of reference configuration ``NAME/MODEL``: the model, the data
    and budget options of NAME (`REFERENCE_DEFAULTS`) and the model's reference configuration.

    Example:
        >>> configuration_fields("spa-eng/transformer")["d_model"]
        256
    """
    name, _, model = configuration.partition("/")
    if name not in REFERENCE_DEFAULTS:
        raise ValueError(f"unknown reference configuration {configuration!r}; choose from "
                         f"{', '.join(configuration_names())}")
    return {"model": model, **REFERENCE_DEFAULTS[name], **reference_configuration(name, model)}


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


def reference_description(name, model):
    """One line describing `model` in reference configuration `name`."""
    return _reference(name, model)["description"]


def model_options(model, reference=None):
    """Every constructor argument of `model`: the defaults, or reference configuration `reference`.

    Args:
        model: a key of `MODEL_ARGUMENTS`.
        reference: optional name of a `REFERENCE_CONFIGURATIONS` entry.

    Returns:
        `{argument: value}` for the arguments in `MODEL_ARGUMENTS[model]`.
    """
    if model not in MODEL_ARGUMENTS:
        raise ValueError(f"unknown model {model!r}; choose from {tuple(MODEL_ARGUMENTS)}")
    chosen = reference_configuration(reference, model) if reference else {}
    return {key: chosen.get(key, OPTION_DEFAULTS[key]) for key in MODEL_ARGUMENTS[model]}
