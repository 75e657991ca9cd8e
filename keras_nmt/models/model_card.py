"""`ModelCard`: what the library knows of a model without importing Keras."""

import dataclasses
from collections.abc import Callable


@dataclasses.dataclass(frozen=True)
class ModelCard:
    """A model's front page: the `CARD` of its folder's `__init__.py` (`keras_nmt/models/<name>/`).

    The command line reads it without importing TensorFlow (`--model` choices, which flags a
    model reads, their defaults); training, the benchmarks and the tests read the rest. The
    folder also holds the model itself: for a seq2seq model `model.py` (what both twins share:
    the docstring, the constructor, the layers) and the twins `functional.py` and
    `subclassed.py` (`<class_stem>Functional`, `<class_stem>Subclassed`); for an aligned model
    its one class (`aligned_class`). `keras_nmt.models.registry` lists the cards.

    Attributes:
        name: the model's name (`keras-nmt train --model NAME`), also its folder's.
        package: the folder as a module name (`__name__` of its `__init__.py`): the twins are
            its modules `functional` and `subclassed`.
        arguments: the constructor's arguments after the two vocabulary sizes, in order: fields
            of the workshop's `ModelOptions`, passed by `build_model` and saved by `get_config`.
        options: a dataclass of the `ModelOptions` fields this model brings (each made with
            `keras_nmt.option_fields.option`, hence a flag of `keras-nmt train`), or None when
            it only takes options other models bring.
        recipe: how it trains: `{"schedule": "constant" | "inverse_sqrt", "adam": {Adam's
            arguments besides Keras' defaults}}` (`inverse_sqrt`: warm-up then 1/sqrt(step)
            scaled by d_model^-0.5, Vaswani et al. 2017, §5.3).
        step_matmuls: `(options, rows, sentences, vocab) -> [(m, k, n), ...]`, the matmuls that
            dominate a training step (`--precision auto` times them): `options` the model's
            options (a `TrainConfig` as a dict), `rows` the target tokens of a batch,
            `sentences` its sentences, `vocab` the target vocabulary.
        class_stem: a seq2seq model's twins' class names without `Functional` / `Subclassed`.
        sizes: a seq2seq model's reference configurations, one per name of the workshop's
            `keras_nmt.workshop.configurations.REFERENCE_NAMES`:
            `{name: {"description": one line, "config": the TrainConfig fields it sets}}`.
        forward_flops: a seq2seq model's `(config, s, t) -> float`, the forward FLOPs of a
            batch: `config` the model's `get_config()`, `s` and `t` the real source and target
            tokens of each sentence (float64 arrays); counted as `keras_nmt/models/flops.py`
            says.
        aligned_class: an aligned model's one class (no twins, the aligned contract of
            `keras_nmt.decoding.aligned`): `(module in the folder, class name)`; None for a
            seq2seq model.

    Example:
        >>> from keras_nmt.models.registry import card
        >>> card("transformer").sizes["benchmark"]["config"]["d_model"]
        256
    """

    name: str
    package: str
    arguments: tuple[str, ...]
    options: type | None
    recipe: dict
    step_matmuls: Callable
    class_stem: str | None = None
    sizes: dict = dataclasses.field(default_factory=dict)
    forward_flops: Callable | None = None
    aligned_class: tuple[str, str] | None = None

    def schedule(self, fine_tuning=False):
        """The learning-rate schedule the model trains with: its recipe's, constant when
        fine-tuning (a warm-up is for weights that start random).

        Example:
            >>> card("transformer").schedule(), card("transformer").schedule(fine_tuning=True)
            ('inverse_sqrt', 'constant')
        """
        return "constant" if fine_tuning else self.recipe["schedule"]
