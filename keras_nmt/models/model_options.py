"""`ModelOptions`: every model option with its default, the model part of a `TrainConfig`."""

import dataclasses

from keras_nmt.option_fields import check_options, option

ATTENTION_SCORES = ("dot", "general", "concat")
ACTIVATIONS = ("relu", "swish", "gelu")
POSITION_LAYOUTS = ("interleaved", "halves")


@dataclasses.dataclass
class ModelOptions:
    """The constructor arguments of every model, by training-option name, with their defaults.

    Each model takes the subset named in `keras_nmt.models.configurations.MODEL_ARGUMENTS`;
    `keras_nmt.training.TrainConfig` extends this class with the options of a training run.
    Each field is also a flag of `keras-nmt train` (`keras_nmt.option_fields`).

    Example:
        >>> ModelOptions(units=512).units
        512
    """

    embedding_dim: int = option(128, "embedding width of the recurrent models", at_least=1)
    units: int = option(256, "LSTM width of the recurrent models", at_least=1)
    num_layers: int = option(1, "stacked layers in encoder and decoder", "--layers", at_least=1)
    dropout: float = option(0.0, "dropout rate", at_least=0, below=1)
    reverse_source: bool = option(False, "feed the source backwards (Sutskever et al. 2014, "
                                  "§3.3)")
    bidirectional: bool = option(False, "bidirectional encoder (LSTM and Luong models)")
    attention_score: str = option("general", "Luong score function", choices=ATTENTION_SCORES)
    input_feeding: bool = option(False, "Luong input feeding (§3.3); subclassed twin only")
    attention_units: int | None = option(None, "Bahdanau attention width (default: --units)",
                                         at_least=1)
    deep_output: bool = option(False, "Bahdanau deep output: the previous token also feeds the "
                               "output layer")
    d_model: int = option(128, "Transformer model width", at_least=1)
    num_heads: int = option(4, "Transformer attention heads", "--heads", at_least=1)
    ff_dim: int = option(512, "Transformer feed-forward width", at_least=1)
    pre_norm: bool = option(False, "Transformer layer norm before each sub-layer instead of "
                            "after")
    shared_embeddings: bool = option(False, "Transformer: one embedding for source and target "
                                     "(same vocabulary)")
    tied_output: bool = option(False, "Transformer: output projection tied to the target "
                               "embedding")
    upsampling: int = option(2, "CTC: output frames per input position, so an output may be up "
                             "to this many times as long as its input", at_least=1)
    max_length: int = option(100, "longest sequence in tokens: longer training pairs are "
                             "dropped, longer inputs truncated when translating, and a "
                             "Transformer's position table has that many rows", at_least=1)

    # Transformer options that Marian (OPUS-MT) models need; see `TransformerFunctional`.
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

    def __post_init__(self):
        check_options(self)
