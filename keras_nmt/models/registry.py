"""Maps `(model name, API)` to the model class, and training options to constructor arguments.

What each model takes lives in `keras_nmt.models.configurations`.
"""

import importlib

from keras_nmt.models.configurations import MODEL_ARGUMENTS

# name -> (module stem, class stem): the twins are `<stem>_functional.py`, `<stem>_subclassed.py`.
_MODELS = {
    "lstm": ("lstm_seq2seq", "LstmSeq2Seq"),
    "luong": ("luong_seq2seq", "LuongSeq2Seq"),
    "bahdanau": ("bahdanau_seq2seq", "BahdanauSeq2Seq"),
    "transformer": ("transformer", "Transformer"),
}
MODEL_NAMES = tuple(_MODELS)
APIS = ("functional", "subclassed")
# Aligned models: a label or a blank for every (upsampled) input position, all at once. They keep
# the aligned contract (`keras_nmt.decoding.aligned`), not the seq2seq one, and are one class
# each, not twins (keras_nmt/models/ctc/ctc_model.py says why): name -> (module, class).
_ALIGNED_MODELS = {"ctc": ("ctc.ctc_model", "CtcModel")}
ALIGNED_MODEL_NAMES = tuple(_ALIGNED_MODELS)


def model_class(name, api):
    """The class of model `name` (`lstm`, `luong`, `bahdanau`, `transformer`) in style `api`;
    an aligned model's one class (`ctc`) whatever `api`.

    Example:
        >>> model_class("luong", "functional")  # LuongSeq2SeqFunctional
    """
    if name in _ALIGNED_MODELS:
        module, class_name = _ALIGNED_MODELS[name]
        return getattr(importlib.import_module(f"keras_nmt.models.{module}"), class_name)
    if name not in _MODELS:
        raise ValueError(f"unknown model {name!r}; choose from {MODEL_NAMES + ALIGNED_MODEL_NAMES}")
    if api not in APIS:
        raise ValueError(f"unknown API {api!r}; choose from {APIS}")
    stem, class_stem = _MODELS[name]
    module = importlib.import_module(f"keras_nmt.models.{stem}_{api}")
    return getattr(module, f"{class_stem}{api.capitalize()}")


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
    unknown = sorted(set(arguments) - set(MODEL_ARGUMENTS[name]))
    if unknown:
        raise ValueError(f"model {name!r} takes no {', '.join(unknown)}; its arguments: "
                         f"{', '.join(MODEL_ARGUMENTS[name])}")
    chosen = {key: options[key] for key in MODEL_ARGUMENTS[name] if key in options}
    return model_class(name, api)(
        source_vocab_size=source_vocab_size, target_vocab_size=target_vocab_size, **chosen
    )
