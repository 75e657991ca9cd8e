"""The LSTM encoder-decoder (Sutskever et al. 2014): its card.

The model: `model.py` (what the twins share), `functional.py` and `subclassed.py` (the twins).
"""

import dataclasses

from keras_nmt.models.flops import dense_flops, lstm_stack_flops
from keras_nmt.models.model_card import ModelCard
from keras_nmt.option_fields import option


@dataclasses.dataclass
class LstmOptions:
    """The options the LSTM model brings; the attention models reuse them."""

    embedding_dim: int = option(128, "embedding width of the recurrent and ConvS2S models",
                                at_least=1)
    units: int = option(256, "LSTM width of the recurrent models", at_least=1)
    num_layers: int = option(1, "stacked layers in encoder and decoder", "--layers", at_least=1)
    dropout: float = option(0.0, "dropout rate", at_least=0, below=1)
    reverse_source: bool = option(False, "feed the source backwards (Sutskever et al. 2014, "
                                  "§3.3)")
    bidirectional: bool = option(False, "bidirectional encoder (LSTM and Luong models)")


def forward_flops(config, s, t):
    """Encoder `S * sum_l lstm(in_l, U)` (`in_0 = E`, then `U`; bidirectional: two directions of
    `U / 2`), decoder `T * sum_l lstm(in_l, U)`, output `T * 2 * U * V`, with `E` the embedding
    size, `U` the units, `V` the target vocabulary and `lstm(i, u) = 2 * 4 * u * (i + u)`."""
    e, u, layers = config["embedding_dim"], config["units"], config.get("num_layers", 1)
    encoder = lstm_stack_flops(s.sum(), e, u, layers, config.get("bidirectional", False))
    decoder = lstm_stack_flops(t.sum(), e, u, layers)
    return encoder + decoder + dense_flops(t.sum(), u, config["target_vocab_size"])


def step_matmuls(options, rows, sentences, vocab):
    """The LSTM gates over `sentences` rows (one time step), then the attention and output
    projections over `rows` rows (the attention models' matmuls are of the same sizes)."""
    units = options["units"]
    return [(sentences, options["embedding_dim"], 4 * units), (sentences, units, 4 * units),
            (rows, units, units), (rows, units, vocab)]  # fmt: skip


# The sizes of the benchmarks, which the attention models share.
BENCHMARK = {"description": "embedding 256, units 512, one layer per side",
             "config": {"embedding_dim": 256, "units": 512, "num_layers": 1}}
BENCHMARKS = {
    "benchmark": BENCHMARK,
    "benchmark-quick": {"description": "embedding 16, units 32",
                        "config": {"embedding_dim": 16, "units": 32, "num_layers": 1}},
    "benchmark-gpu": BENCHMARK,
    "benchmark-jax-quick": {"description": "embedding 8, units 16",
                            "config": {"embedding_dim": 8, "units": 16, "num_layers": 1}},
}
TINY = {"description": "embedding 8, units 8",
        "config": {"embedding_dim": 8, "units": 8, "num_layers": 1}}
# The spa-eng references of the recurrent models use no dropout: the epochs 45 minutes buy on
# two cores do not overfit, and the attention models learned faster per epoch without it
# (docs/decisions.md).
SPA_ENG = {"embedding_dim": 256, "units": 512, "dropout": 0.0}

CARD = ModelCard(
    name="lstm",
    package=__name__,
    class_stem="LstmSeq2Seq",
    arguments=("embedding_dim", "units", "num_layers", "dropout", "reverse_source",
               "bidirectional"),
    options=LstmOptions,
    recipe={"schedule": "constant", "adam": {}},
    sizes={
        # One layer per side: faster per token and ahead per epoch too (docs/decisions.md).
        "spa-eng": {
            "description": "1-layer LSTM, reversed source (Sutskever et al. 2014), no dropout",
            "config": {**SPA_ENG, "num_layers": 1, "reverse_source": True},
        },
        **BENCHMARKS,
        "tiny": TINY,
    },
    forward_flops=forward_flops,
    step_matmuls=step_matmuls,
)
