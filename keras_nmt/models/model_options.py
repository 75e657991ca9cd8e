"""`ModelOptions`: every model option with its default, the model part of a `TrainConfig`.

Each option is declared once: `max_length` here (it bounds every model's sequences), the others
in the card of the model that brings them (`ModelCard.options`: `d_model` in
`keras_nmt/models/transformer/__init__.py`), where other models may take them too (the Luong model
takes the LSTM's `units`).
"""

import dataclasses

from keras_nmt.models.registry import ALIGNED_CARDS, CARDS
from keras_nmt.option_fields import check_options, option


@dataclasses.dataclass
class SequenceOptions:
    """The option every model obeys."""

    max_length: int = option(100, "longest sequence in tokens: longer training pairs are "
                             "dropped, longer inputs truncated when translating, and a "
                             "Transformer's or ConvS2S's position table has that many rows",
                             at_least=1)


# A dataclass takes its bases' fields from the last base to the first: each registered model's
# options in the registry's order, then `max_length`.
_BROUGHT = tuple(card.options for card in reversed(CARDS + ALIGNED_CARDS)
                 if card.options is not None)


@dataclasses.dataclass
class ModelOptions(SequenceOptions, *_BROUGHT):
    """The constructor arguments of every model, by training-option name, with their defaults.

    Each model takes the subset its card names (`ModelCard.arguments`);
    `keras_nmt.workshop.run.train_config.TrainConfig` extends this class with the options of a
    training run. Each field is also a flag of `keras-nmt train` (`keras_nmt.option_fields`).

    Example:
        >>> ModelOptions(units=512).units
        512
    """

    def __post_init__(self):
        check_options(self)
