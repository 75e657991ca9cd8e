"""The Bahdanau attention encoder-decoder (Bahdanau et al. 2014): its card.

The model: `model.py` (what the twins share), `functional.py` and `subclassed.py` (the twins).
"""

import dataclasses

from keras_nmt.models import lstm
from keras_nmt.models.flops import dense_flops, lstm_step_flops
from keras_nmt.models.model_card import ModelCard
from keras_nmt.option_fields import option


@dataclasses.dataclass
class BahdanauOptions:
    """The options the Bahdanau model brings besides the LSTM's."""

    attention_units: int | None = option(None, "Bahdanau attention width (default: --units)",
                                         at_least=1)
    deep_output: bool = option(False, "Bahdanau deep output: the previous token also feeds the "
                               "output layer")


def forward_flops(config, s, t):
    """With `A` attention units: encoder `S * 2 * lstm(E, U)` (bidirectional, `U` per
    direction), bridges `2 * 2 * 2U * U`, keys `S * 2 * 2U * A`; per target step the query
    `2 * U * A`, the cell `lstm(E + 2U, U)`, per source position the score `2 * A` (`v`) and the
    context `2 * 2U`; output hidden `T * 2 * (3U [+ E with deep output]) * U`, output `T * 2UV`."""
    e, u = config["embedding_dim"], config["units"]
    a = config.get("attention_units") or u
    total = s.sum() * 2 * lstm_step_flops(e, u)  # bidirectional, u per direction
    total += len(s) * 2 * dense_flops(1, 2 * u, u)  # bridge_h, bridge_c
    total += dense_flops(s.sum(), 2 * u, a)  # keys
    total += t.sum() * (dense_flops(1, u, a) + lstm_step_flops(e + 2 * u, u))
    total += (s * t).sum() * (2 * a + 2 * 2 * u)  # score v . tanh(...) and context
    hidden_in = 3 * u + (e if config.get("deep_output", False) else 0)
    total += dense_flops(t.sum(), hidden_in, u)
    return total + dense_flops(t.sum(), u, config["target_vocab_size"])


CARD = ModelCard(
    name="bahdanau",
    package=__name__,
    class_stem="BahdanauSeq2Seq",
    arguments=("embedding_dim", "units", "dropout", "attention_units", "deep_output"),
    options=BahdanauOptions,
    recipe={"schedule": "constant", "adam": {}},
    sizes={
        "spa-eng": {
            "description": "bidirectional-LSTM encoder + additive attention, no dropout",
            "config": dict(lstm.SPA_ENG),
        },
        **lstm.BENCHMARKS,
        "tiny": {"description": "embedding 8, units 8, attention units 8",
                 "config": {"embedding_dim": 8, "units": 8, "attention_units": 8}},
    },
    forward_flops=forward_flops,
    step_matmuls=lstm.step_matmuls,
)
