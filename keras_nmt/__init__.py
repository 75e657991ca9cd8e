"""keras_nmt: sequence-to-sequence learning (translation, spelling correction) in Keras 3.

The textbook (read it against the lecture; README.md's "Read the code" gives an order):
    text      tokenizers (tensorflow-text ops; traceable into tf.function and SavedModels)
    data      the tf.data pipeline (teacher forcing)
    layers    attention (`layers/attention.py`) and Transformer blocks (keras.ops only)
    models    a folder per model: its card, what the twins share, the functional and subclassed
              twins; the registry
    decoding  greedy, beam search and sampling on the encode/decode_step contract
    metrics   BLEU/chrF (sacreBLEU), WER/CER, exact match
    training  the masked loss and metrics, schedules, teacher forcing, `compile_model` (fit.py)
    inference the Translator (strings in, translations out)
    export    the Translator as a SavedModel
The workshop (`keras_nmt.workshop`: the command line, the server, benchmarks, comparisons, a
training run and its options, data and folder, corpus files, translators opened from files) is
built on it; the textbook never imports it.

The main entry points are here, imported when first used (so `import keras_nmt` loads no
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

from typing import TYPE_CHECKING

from keras_nmt.workshop.keras_registration import after_import

if TYPE_CHECKING:  # what the names below are, for readers and editors
    from keras_nmt.models.registry import build_model
    from keras_nmt.workshop.run.task import TranslationTask
    from keras_nmt.workshop.run.train_config import TrainConfig
    from keras_nmt.workshop.run.trainer import train
    from keras_nmt.workshop.translators.export_translator import export_translator
    from keras_nmt.workshop.translators.open_translator import open_translator

__version__ = "0.1.0"
__all__ = ["TrainConfig", "TranslationTask", "build_model", "export_translator",
           "open_translator", "train"]


def __getattr__(name):
    """The entry points, imported on first use (PEP 562): `import keras_nmt` stays light.
    TensorFlow starts without its C++ notes first (`KERAS_NMT_DEBUG=1` shows them), as for every
    command."""
    if name not in __all__:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    if name != "TrainConfig":  # the others load TensorFlow
        from keras_nmt.workshop.quiet_start import start_tensorflow

        start_tensorflow()
    if name == "TrainConfig":
        from keras_nmt.workshop.run.train_config import TrainConfig as value
    elif name == "TranslationTask":
        from keras_nmt.workshop.run.task import TranslationTask as value
    elif name == "build_model":
        from keras_nmt.models.registry import build_model as value
    elif name == "export_translator":
        from keras_nmt.workshop.translators.export_translator import export_translator as value
    elif name == "open_translator":
        from keras_nmt.workshop.translators.open_translator import open_translator as value
    else:
        from keras_nmt.workshop.run.trainer import train as value
    globals()[name] = value
    return value


def _register_serializable():
    """Imports every module whose classes a saved `.keras` file may name: the models (with their
    layers) and the training set-up compiled into it."""
    import keras_nmt.training.fit  # noqa: F401  (the optimizer, schedule, loss and metrics)
    from keras_nmt.models.registry import register_models

    register_models()


# `keras.models.load_model("RUN/model.keras")` after `import keras_nmt`: see `after_import`.
after_import("keras", _register_serializable, package=__name__,
             users=("keras_nmt.layers", "keras_nmt.models"))
