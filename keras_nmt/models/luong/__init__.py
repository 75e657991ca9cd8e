"""The Luong global-attention encoder-decoder (Luong et al. 2015): its card.

The model: `model.py` (what the twins share), `functional.py` and `subclassed.py` (the twins).
"""

import dataclasses

from keras_nmt.models import lstm
from keras_nmt.models.flops import attention_pair_flops, dense_flops
from keras_nmt.models.model_card import ModelCard
from keras_nmt.option_fields import option

ATTENTION_SCORES = ("dot", "general", "concat")


@dataclasses.dataclass
class LuongOptions:
    """The options the Luong model brings besides the LSTM's."""

    attention_score: str = option("general", "Luong score function", choices=ATTENTION_SCORES)
    input_feeding: bool = option(False, "Luong input feeding (§3.3); subclassed twin only")


def forward_flops(config, s, t):
    """The LSTM's (`lstm.forward_flops`) plus the memory projection `S * 2 * U * U` (score
    "general" or "concat"), the query projection `T * 2 * U * U` ("concat" only), scores and
    context `S * T * (2U + 2U)` ("concat" adds `2U` per pair for `v`), the attentional layer
    `T * 2 * 2U * U`."""
    u = config["units"]
    score = config.get("attention_score", "general")
    total = lstm.forward_flops(config, s, t)
    pair = attention_pair_flops(u) + (2 * u if score == "concat" else 0)
    total += (s * t).sum() * pair
    if score in ("general", "concat"):
        total += dense_flops(s.sum(), u, u)
    if score == "concat":
        total += dense_flops(t.sum(), u, u)
    return total + dense_flops(t.sum(), 2 * u, u)  # attentional layer on [context; h]


CARD = ModelCard(
    name="luong",
    package=__name__,
    class_stem="LuongSeq2Seq",
    arguments=(*lstm.CARD.arguments, "attention_score", "input_feeding"),
    options=LuongOptions,
    recipe={"schedule": "constant", "adam": {}},
    sizes={
        # The `general` score collapses onto one source position early, the additive `concat`
        # stays soft; one layer per side, as for the LSTM (docs/decisions.md).
        "spa-eng": {
            "description": "1-layer LSTM + Luong concat attention, no dropout",
            "config": {**lstm.SPA_ENG, "num_layers": 1, "attention_score": "concat"},
        },
        **lstm.BENCHMARKS,
        "tiny": lstm.TINY,
    },
    forward_flops=forward_flops,
    step_matmuls=lstm.step_matmuls,
)
