"""`ModelCard`: what the library knows of a model without importing Keras."""

import dataclasses
from collections.abc import Callable

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


@dataclasses.dataclass(frozen=True)
class ModelCard:
    """A model's front page: the `CARD` of its folder's `__init__.py` (`keras_nmt/models/<name>/`).

    The command line reads it without importing TensorFlow (`--model` choices, which flags a
    model reads, their defaults); training, the benchmarks and the tests read the rest. The
    folder also holds the model itself: `model.py` (what both twins share: the docstring, the
    constructor, the layers) and the twins `functional.py` and `subclassed.py`
    (`<class_stem>Functional`, `<class_stem>Subclassed`). `keras_nmt.models.registry` lists the
    cards.

    Attributes:
        name: the model's name (`keras-nmt train --model NAME`), also its folder's.
        package: the folder as a module name (`__name__` of its `__init__.py`): the twins are
            its modules `functional` and `subclassed`.
        class_stem: the twins' class names without `Functional` / `Subclassed`.
        arguments: the constructor's arguments after the two vocabulary sizes, in order: fields
            of `ModelOptions`, passed by `build_model` and saved by `get_config`.
        options: a dataclass of the `ModelOptions` fields this model brings (each made with
            `keras_nmt.option_fields.option`, hence a flag of `keras-nmt train`), or None when
            it only takes options other models bring.
        recipe: how it trains: `{"schedule": "constant" | "inverse_sqrt", "adam": {Adam's
            arguments besides Keras' defaults}}` (`inverse_sqrt`: warm-up then 1/sqrt(step)
            scaled by d_model^-0.5, Vaswani et al. 2017, §5.3).
        sizes: its reference configurations, one per name of `REFERENCE_NAMES`:
            `{name: {"description": one line, "config": the TrainConfig fields it sets}}`.
        forward_flops: `(config, s, t) -> float`, the forward FLOPs of a batch: `config` the
            model's `get_config()`, `s` and `t` the real source and target tokens of each
            sentence (float64 arrays); counted as `keras_nmt/models/flops.py` says.
        step_matmuls: `(options, rows, sentences, vocab) -> [(m, k, n), ...]`, the matmuls that
            dominate a training step (`--precision auto` times them): `options` the model's
            options (a `TrainConfig` as a dict), `rows` the target tokens of a batch,
            `sentences` its sentences, `vocab` the target vocabulary.

    Example:
        >>> from keras_nmt.models.registry import card
        >>> card("transformer").sizes["benchmark"]["config"]["d_model"]
        256
    """

    name: str
    package: str
    class_stem: str
    arguments: tuple[str, ...]
    options: type | None
    recipe: dict
    sizes: dict
    forward_flops: Callable
    step_matmuls: Callable
