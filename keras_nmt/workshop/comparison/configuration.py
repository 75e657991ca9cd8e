"""`Configuration`: one named training configuration of a comparison."""

import dataclasses

from keras_nmt.workshop.run.train_config import TrainConfig


@dataclasses.dataclass(frozen=True)
class Configuration:
    """One row group of a comparison: a name and how its `TrainConfig` differs from the base.

    The final `TrainConfig` is built in this order, later entries winning (see `resolve`):
    `TrainConfig` defaults < the preset's defaults < ``defaults`` < the options the user gave
    on the command line < ``overrides``. ``overrides`` are what the comparison is about (the
    model, the API, the tokenizer...), so no flag can erase the difference being measured;
    ``defaults`` are this configuration's suggested values (e.g. the reference sizes of each model
    in the ``spa-eng`` preset) that explicit flags may still change.

    Attributes:
        name: short name, unique in its preset; also the run folder name (``runs/<name>``).
        overrides: `TrainConfig` fields this configuration always sets.
        defaults: `TrainConfig` fields this configuration suggests.
        description: one line for ``--list``.
    """

    name: str
    overrides: dict = dataclasses.field(default_factory=dict)
    defaults: dict = dataclasses.field(default_factory=dict)
    description: str = ""

    def resolve(self, preset_defaults=None, user_options=None, **fixed):
        """The `TrainConfig` of this configuration.

        Args:
            preset_defaults: the preset's defaults (below ``self.defaults``).
            user_options: options the user set explicitly (above ``self.defaults``).
            **fixed: fields set last (e.g. ``output``, the run folder).

        Returns:
            A new `TrainConfig`.
        """
        values = {
            **(preset_defaults or {}),
            **self.defaults,
            **(user_options or {}),
            **self.overrides,
            **fixed,
        }
        known = {field.name for field in dataclasses.fields(TrainConfig)}
        unknown = sorted(set(values) - known)
        if unknown:
            raise ValueError(f"configuration {self.name!r}: unknown TrainConfig fields {unknown}")
        return TrainConfig(**values)
