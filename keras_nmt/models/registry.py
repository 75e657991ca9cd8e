"""Maps `(model name, API)` to the model class, and training options to constructor arguments."""

import importlib

# name -> (module stem, class stem): the twins are `<stem>_functional.py`, `<stem>_subclassed.py`.
_MODELS = {
    "lstm": ("lstm_seq2seq", "LstmSeq2Seq"),
    "luong": ("luong_seq2seq", "LuongSeq2Seq"),
    "bahdanau": ("bahdanau_seq2seq", "BahdanauSeq2Seq"),
    "transformer": ("transformer", "Transformer"),
}
MODEL_NAMES = tuple(_MODELS)
APIS = ("functional", "subclassed")

# Constructor arguments of each model, by the name of the training option that sets it.
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
    ),
}


def model_class(name, api):
    """The class of model `name` (`lstm`, `luong`, `bahdanau`, `transformer`) in style `api`.

    Example:
        >>> model_class("luong", "functional")  # LuongSeq2SeqFunctional
    """
    if name not in _MODELS:
        raise ValueError(f"unknown model {name!r}; choose from {MODEL_NAMES}")
    if api not in APIS:
        raise ValueError(f"unknown API {api!r}; choose from {APIS}")
    stem, class_stem = _MODELS[name]
    module = importlib.import_module(f"keras_nmt.models.{stem}_{api}")
    return getattr(module, f"{class_stem}{api.capitalize()}")


def build_model(name, api, source_vocab_size, target_vocab_size, options):
    """Instantiates a model from a mapping of training options (extra keys are ignored)."""
    arguments = {key: options[key] for key in MODEL_ARGUMENTS[name] if key in options}
    return model_class(name, api)(
        source_vocab_size=source_vocab_size, target_vocab_size=target_vocab_size, **arguments
    )
