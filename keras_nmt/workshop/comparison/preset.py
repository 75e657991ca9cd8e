"""`Preset`: a named matrix of configurations trained and decoded the same way."""

import dataclasses

from keras_nmt.decoding.decoding_options import GREEDY


def decoding_name(options):
    """A `DecodingOptions`' label in the comparison tables: ``greedy``, ``beam 4``,
    ``beam 4, alpha 0.6``, ``sample``."""
    strategy = options.chosen_strategy
    if strategy != "beam":
        return strategy
    alpha = f", alpha {options.length_penalty:g}" if options.length_penalty else ""
    return f"beam {options.beam_size}{alpha}"


@dataclasses.dataclass(frozen=True)
class Preset:
    """A comparison: configurations trained on the same data, tokenizers, seed and budget.

    Every configuration is decoded with every entry of ``decodings``: the table has one row per
    (configuration, decoding) pair, so the ``decoding`` preset trains one model and compares
    several decoders without retraining.

    Attributes:
        name: the ``--preset`` value.
        description: one paragraph for ``--list`` and the results header.
        configurations: the `Configuration`s a run of the preset trains, in table order.
        variants: further `Configuration`s, trained only when named with ``--only`` (e.g. the
            measured alternatives to a reference configuration, kept reproducible).
        decodings: the `DecodingOptions` every configuration is scored with.
        defaults: `TrainConfig` fields shared by all configurations (below each configuration's
            own defaults and the user's flags; e.g. the ``spa-eng`` data and its time budget).
        evaluation_split: ``"valid"`` scores on the validation pairs the training used (the
            matrix presets); ``"test"`` loads ``data``'s test split (the reference run).
        task: the `keras_nmt.workshop.run.task.TranslationTask` every configuration trains on;
            ``None`` (the default): the corpus of each configuration's ``data``. A preset with
            its own data gives its own task.
    """

    name: str
    description: str
    configurations: tuple
    decodings: tuple = (GREEDY,)
    defaults: dict = dataclasses.field(default_factory=dict)
    evaluation_split: str = "valid"
    task: object = None  # not imported here: `--help` and `--list` load no TensorFlow
    variants: tuple = ()

    def __post_init__(self):
        names = self.names
        if len(set(names)) != len(names):
            raise ValueError(f"preset {self.name!r}: configuration names repeat: {names}")
        if self.evaluation_split not in ("valid", "test"):
            raise ValueError(f"evaluation_split must be 'valid' or 'test', not "
                             f"{self.evaluation_split!r}")

    @property
    def names(self):
        """The configuration names, then the variant names, in order."""
        return [configuration.name for configuration in (*self.configurations, *self.variants)]

    def select(self, only):
        """This preset restricted to the configurations and variants named in ``only``.

        With ``only`` empty: the configurations, without the variants.
        """
        if not only:
            return dataclasses.replace(self, variants=())
        unknown = [name for name in only if name not in self.names]
        if unknown:
            raise ValueError(
                f"preset {self.name!r} has no configuration {', '.join(map(repr, unknown))}; "
                f"choose from {', '.join(self.names)}"
            )
        kept = tuple(c for c in (*self.configurations, *self.variants) if c.name in set(only))
        return dataclasses.replace(self, configurations=kept, variants=())
