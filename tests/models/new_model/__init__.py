"""A model added the way CONTRIBUTING.md says: this folder plus one registry line.

`tests/test_adding_a_model.py` copies it into a copy of the package as
`keras_nmt/models/bow/`, adds the registry line, and shows the model working everywhere models
are used. It is the smallest model that keeps the inference contract: the decoder sees the
previous token and the mean of the source embeddings, no recurrence.

The card: `CARD` below (options, recipe, reference sizes, FLOPs, matmuls); the model:
`model.py` (what the twins share), `functional.py` and `subclassed.py` (the twins).
"""

import dataclasses

from keras_nmt.models.flops import dense_flops
from keras_nmt.models.model_card import ModelCard
from keras_nmt.option_fields import option


@dataclasses.dataclass
class BagOfWordsOptions:
    """The option the model brings; it also takes the LSTM's `embedding_dim`."""

    bag_units: int = option(16, "bag-of-words model: width of the source summary", at_least=1)


def forward_flops(config, s, t):
    """The summary `S/S * 2 * E * B` per sentence (its mean, then `Dense(B)`), per target token
    the summary's projection `2 * B * E` and the output `2 * E * V`."""
    e, b = config["embedding_dim"], config["bag_units"]
    return (len(s) * dense_flops(1, e, b) + dense_flops(t.sum(), b, e)
            + dense_flops(t.sum(), e, config["target_vocab_size"]))


def step_matmuls(options, rows, sentences, vocab):
    """The summary over `sentences` rows and the output projection over `rows`."""
    e, b = options["embedding_dim"], options["bag_units"]
    return [(sentences, e, b), (rows, b, e), (rows, e, vocab)]


SIZES = {"description": "embedding 8, bag units 8",
         "config": {"embedding_dim": 8, "bag_units": 8}}

CARD = ModelCard(
    name="bow",
    package=__name__,
    class_stem="BagOfWords",
    arguments=("embedding_dim", "bag_units"),
    options=BagOfWordsOptions,
    recipe={"schedule": "constant", "adam": {}},
    sizes={name: SIZES for name in ("spa-eng", "benchmark", "benchmark-quick", "benchmark-gpu",
                                    "benchmark-jax-quick", "tiny")},
    forward_flops=forward_flops,
    step_matmuls=step_matmuls,
)
