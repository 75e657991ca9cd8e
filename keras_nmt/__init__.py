"""keras_nmt: sequence-to-sequence learning (translation, spelling correction) in Keras 3.

Subpackages:
    text      tokenizers (tensorflow-text ops; traceable into tf.function and SavedModels)
    data      corpus readers, the built-in dataset, the tf.data pipeline
    layers    attention layers and Transformer blocks (keras.ops only)
    models    the model twins (functional and subclassed) and their registry
    decoding  greedy, beam search and sampling on the encode/decode_step contract
    metrics   BLEU/chrF (sacreBLEU), WER/CER, exact match
    inference the Translator (strings in, translations out), its SavedModel-backed twin,
              open_translator and the run directory format
    training  losses, metrics and callbacks for model.fit, train()
    export    SavedModel export of a Translator

The main entry points are here, imported on first use (so `import keras_nmt` loads no
TensorFlow):

    >>> import keras_nmt
    >>> config = keras_nmt.TrainConfig(model="luong", epochs=2, output="runs/quick")
    >>> result = keras_nmt.train(config)                 # writes the run folder runs/quick
    >>> translator = keras_nmt.open_translator("runs/quick")
    >>> translator(["3rd of March 2021"])                # a list of strings in, strings out
    >>> keras_nmt.export_translator("runs/quick")        # saved_models/quick/1
    >>> keras_nmt.TrainConfig.from_configuration("spa-eng/transformer", data="spa-eng.{split}.tsv")
    >>> keras_nmt.build_model("luong", "functional", 64, 64, units=32)
    >>> keras_nmt.train(config, task=MyTask())           # other data: a TranslationTask subclass

The data flow and what each package may import: docs/architecture.md.
"""

import importlib

from keras_nmt._lazy import after_import, lazy_package

__version__ = "0.1.0"


# What a saved `.keras` file may name besides the models (which the registry imports with
# their layers): the training set-up compiled into it, and a metric of the spelling corrector
# written with TensorFlow ops (only under that backend: JAX machines may have no TensorFlow).
_SERIALIZABLE_MODULES = (
    "keras_nmt.training.fused_adam",
    "keras_nmt.training.inverse_sqrt_schedule",
    "keras_nmt.training.masked_accuracy",
    "keras_nmt.training.masked_sparse_cross_entropy",
    "keras_nmt.training.perplexity",
)
_TENSORFLOW_SERIALIZABLE_MODULES = ("keras_nmt.metrics.token_error_rate",)


def _register_serializable():
    import keras

    from keras_nmt.models.registry import register_models

    register_models()
    modules = _SERIALIZABLE_MODULES
    if keras.backend.backend() == "tensorflow":
        modules += _TENSORFLOW_SERIALIZABLE_MODULES
    for module in modules:
        importlib.import_module(module)


# `keras.models.load_model("RUN/model.keras")` after `import keras_nmt`: see `after_import`.
after_import("keras", _register_serializable, package=__name__,
             users=("keras_nmt.layers", "keras_nmt.models"))
def _start_tensorflow():
    """TensorFlow starts without its C++ notes for the Python API too (`KERAS_NMT_DEBUG=1`
    shows them), as for every command (`keras_nmt.quiet_start`)."""
    importlib.import_module("keras_nmt.quiet_start").start_tensorflow()


# The names whose modules load TensorFlow (TrainConfig does not).
_LOADING_TENSORFLOW = ("TranslationTask", "build_model", "export_translator", "open_translator",
                       "train")
__all__ = lazy_package(
    __name__,
    {
        "TrainConfig": "keras_nmt.training.train_config",
        "TranslationTask": "keras_nmt.training.task",
        "build_model": "keras_nmt.models.registry",
        "export_translator": "keras_nmt.export.export_translator",
        "open_translator": "keras_nmt.inference.open_translator",
        "train": "keras_nmt.training.trainer",
    },
    before=_start_tensorflow, names=_LOADING_TENSORFLOW,
)
