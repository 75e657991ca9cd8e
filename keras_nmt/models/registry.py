"""The registered models, one card each (`keras_nmt/models/<name>/__init__.py`), and how to build
them. A model is registered by importing its folder here and listing its card in `CARDS` (a
seq2seq model: twins, the seq2seq contract) or `ALIGNED_CARDS` (one class, the aligned contract).

Importing this module imports no Keras: the twins (`<name>/functional.py`, `<name>/subclassed.py`)
are imported when a model is built.
"""

import importlib

from keras_nmt.models import bahdanau, convs2s, ctc, lstm, luong, transformer

# The registered seq2seq models, in the order the commands and tables list them.
CARDS = (lstm.CARD, luong.CARD, bahdanau.CARD, transformer.CARD, convs2s.CARD)
# Aligned models: a label or a blank for every (upsampled) input position, all at once. They keep
# the aligned contract (`keras_nmt.decoding.aligned`), not the seq2seq one, and are one class
# each, not twins (keras_nmt/models/ctc/ctc_model.py says why).
ALIGNED_CARDS = (ctc.CARD,)

MODEL_NAMES = tuple(model.name for model in CARDS)
ALIGNED_MODEL_NAMES = tuple(model.name for model in ALIGNED_CARDS)
APIS = ("functional", "subclassed")
_BY_NAME = {model.name: model for model in CARDS + ALIGNED_CARDS}


def card(name):
    """The `ModelCard` of model `name` (`lstm`, `luong`, `bahdanau`, `transformer`, `convs2s`,
    `ctc`).

    Example:
        >>> card("luong").arguments[-1]
        'input_feeding'
    """
    if name not in _BY_NAME:
        raise ValueError(f"unknown model {name!r}; choose from {MODEL_NAMES + ALIGNED_MODEL_NAMES}")
    return _BY_NAME[name]


def model_class(name, api):
    """The class of model `name` in style `api`: `<Stem>Functional` of its folder's
    `functional.py` (`keras_nmt/models/<name>/`) or `<Stem>Subclassed` of `subclassed.py`; an
    aligned model's one class (`ctc`) whatever `api`.

    Example:
        >>> model_class("luong", "functional")  # LuongSeq2SeqFunctional
    """
    model = card(name)
    if model.aligned_class is not None:
        module, class_name = model.aligned_class
        return getattr(importlib.import_module(f"{model.package}.{module}"), class_name)
    if api not in APIS:
        raise ValueError(f"unknown API {api!r}; choose from {APIS}")
    module = importlib.import_module(f"{model.package}.{api}")
    return getattr(module, f"{model.class_stem}{api.capitalize()}")


def register_models():
    """Imports every twin and aligned model, which registers its class with Keras so that
    `.keras` files load."""
    for name in MODEL_NAMES:
        for api in APIS:
            model_class(name, api)
    for name in ALIGNED_MODEL_NAMES:
        model_class(name, APIS[0])


def build_model(name, api, source_vocab_size, target_vocab_size, options=None, **arguments):
    """Instantiates model `name` in style `api`.

    Args:
        name, api: as in `model_class`.
        source_vocab_size, target_vocab_size: the tokenizers' vocabulary sizes.
        options: a mapping of training options (e.g. a `TrainConfig` as a dict); the model's own
            arguments are taken from it, extra keys are ignored.
        **arguments: constructor arguments that override `options`.

    Example:
        >>> build_model("luong", "functional", 64, 64, units=32, attention_score="concat")
    """
    options = {**(options or {}), **arguments}
    takes = card(name).arguments
    unknown = sorted(set(arguments) - set(takes))
    if unknown:
        raise ValueError(f"model {name!r} takes no {', '.join(unknown)}; its arguments: "
                         f"{', '.join(takes)}")
    chosen = {key: options[key] for key in takes if key in options}
    return model_class(name, api)(
        source_vocab_size=source_vocab_size, target_vocab_size=target_vocab_size, **chosen
    )
