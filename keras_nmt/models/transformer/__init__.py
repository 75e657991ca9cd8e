"""The Transformer (Vaswani et al. 2017): its card.

The model: `model.py` (what the twins share), `functional.py` and `subclassed.py` (the twins).
"""

import dataclasses

from keras_nmt.models.flops import attention_pair_flops, dense_flops
from keras_nmt.models.model_card import ModelCard
from keras_nmt.option_fields import option

ACTIVATIONS = ("relu", "swish", "gelu")
POSITION_LAYOUTS = ("interleaved", "halves")


@dataclasses.dataclass
class TransformerOptions:
    """The options the Transformer brings (it also takes `num_layers`, `dropout` and
    `max_length`). Those after `tied_output` exist for models imported from Marian (OPUS-MT,
    `keras_nmt.workshop.pretrained`)."""

    d_model: int = option(128, "Transformer model width", at_least=1)
    num_heads: int = option(4, "Transformer attention heads", "--heads", at_least=1)
    ff_dim: int = option(512, "Transformer feed-forward width", at_least=1)
    pre_norm: bool = option(False, "Transformer layer norm before each sub-layer instead of "
                            "after")
    shared_embeddings: bool = option(False, "Transformer: one embedding for source and target "
                                     "(same vocabulary)")
    tied_output: bool = option(False, "Transformer: output projection tied to the target "
                               "embedding")
    activation: str = option("relu", "Transformer feed-forward activation (swish: Marian)",
                             choices=ACTIVATIONS)
    norm_epsilon: float = option(1e-6, "Transformer LayerNorm epsilon", above=0)
    position_layout: str = option("interleaved", "Transformer sinusoid table: sin and cos "
                                  "interleaved (the paper) or in halves (Marian)",
                                  choices=POSITION_LAYOUTS)
    # On by default; only an import turns it off (the switch form cannot yet say "off").
    scale_embeddings: bool = option(True, "Transformer: embeddings times sqrt(d_model) before "
                                    "the positions are added")
    output_bias: bool = option(False, "Transformer: a learned bias on the tied output "
                               "projection's logits (Marian)")


def forward_flops(config, s, t):
    """With `D` = `d_model`, `F` the feed-forward size, `L` layers: each encoder layer
    `S * (8 D^2 + 4 D F)` (Q, K, V, O projections and the two feed-forward matmuls) plus
    `S^2 * 4D` (scores `QK^T` and context `AV`, all heads); each decoder layer
    `T * (8 D^2 + 4 D^2 + 4 D F)` (self-attention projections, cross-attention Q and O),
    `S * 4 D^2` (cross-attention K and V of the memory), `T^2 * 4D` (self-attention, counted as
    computed: the full square, masked) and `T * S * 4D` (cross-attention); output `T * 2 * D *
    V`. That is the usual "2 x parameters per token" plus the attention terms."""
    d, f, layers = config["d_model"], config["ff_dim"], config["num_layers"]
    encoder = s.sum() * (8 * d * d + 4 * d * f) + (s * s).sum() * attention_pair_flops(d)
    decoder = (t.sum() * (12 * d * d + 4 * d * f) + s.sum() * 4 * d * d
               + ((t * t).sum() + (t * s).sum()) * attention_pair_flops(d))
    return layers * (encoder + decoder) + dense_flops(t.sum(), d, config["target_vocab_size"])


def step_matmuls(options, rows, sentences, vocab):
    """The attention projections, both feed-forward layers and the output projection, each over
    `rows` rows."""
    d_model, ff_dim = options["d_model"], options["ff_dim"]
    return [(rows, d_model, d_model), (rows, d_model, ff_dim), (rows, ff_dim, d_model),
            (rows, d_model, vocab)]  # fmt: skip


# Checkpoint averaging (`TrainConfig.average_checkpoints`; Vaswani et al. 2017, §6.1): the mean of
# the last weights and 4 kept 250 optimizer steps apart, spanning the last 1,000 steps.
CHECKPOINT_AVERAGE = {"average_checkpoints": 5, "average_every": 250}
# The benchmark's sizes: 3+3 layers of width 256 with dropout 0.1 and positions for 256 tokens.
BENCHMARK = {"num_layers": 3, "d_model": 256, "num_heads": 4, "ff_dim": 1024, "dropout": 0.1,
             "max_length": 256}
QUICK = {"num_layers": 1, "d_model": 32, "num_heads": 2, "ff_dim": 64, "dropout": 0.1,
         "max_length": 256}

CARD = ModelCard(
    name="transformer",
    package=__name__,
    class_stem="Transformer",
    arguments=("num_layers", "d_model", "num_heads", "ff_dim", "dropout", "pre_norm",
               "shared_embeddings", "tied_output", "max_length", "activation", "norm_epsilon",
               "position_layout", "scale_embeddings", "output_bias"),
    options=TransformerOptions,
    recipe={"schedule": "inverse_sqrt", "adam": {"beta_1": 0.9, "beta_2": 0.98, "epsilon": 1e-9}},
    sizes={
        # The averaged weights lead the last weights of the same run (docs/decisions.md).
        "spa-eng": {
            "description": "3+3-layer Transformer, d_model 256 (base recipe, smaller), no "
                           "dropout, the mean of its last 5 weights 250 steps apart",
            "config": {"num_layers": 3, "d_model": 256, "num_heads": 4, "ff_dim": 1024,
                       "dropout": 0.0, "label_smoothing": 0.1, "warmup_steps": 4000,
                       **CHECKPOINT_AVERAGE},
        },
        "benchmark": {"description": "d_model 256, 3+3 layers, 4 heads, ff 1024",
                      "config": BENCHMARK},
        "benchmark-quick": {"description": "d_model 32, 1+1 layers, 2 heads, ff 64",
                            "config": QUICK},
        "benchmark-gpu": {"description": "d_model 512, 6+6 layers, 8 heads, ff 2048 (base)",
                          "config": {**BENCHMARK, "num_layers": 6, "d_model": 512,
                                     "num_heads": 8, "ff_dim": 2048}},
        "benchmark-jax-quick": {"description": "d_model 16, 1+1 layers, 2 heads, ff 32",
                                "config": {**QUICK, "d_model": 16, "ff_dim": 32}},
        "tiny": {"description": "d_model 8, 1+1 layers, 2 heads, ff 16, 12 positions",
                 "config": {"num_layers": 1, "d_model": 8, "num_heads": 2, "ff_dim": 16,
                            "max_length": 12}},
    },
    forward_flops=forward_flops,
    step_matmuls=step_matmuls,
)
