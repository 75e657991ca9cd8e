"""`ModelOptions`: every model option with its default, the model part of a `TrainConfig`."""

import dataclasses


@dataclasses.dataclass
class ModelOptions:
    """The constructor arguments of every model, by training-option name, with their defaults.

    Each model takes the subset named in `keras_nmt.models.configurations.MODEL_ARGUMENTS`;
    `keras_nmt.training.TrainConfig` extends this class with the options of a training run.

    Example:
        >>> ModelOptions(units=512).units
        512
    """

    embedding_dim: int = 128
    units: int = 256
    num_layers: int = 1
    dropout: float = 0.0
    reverse_source: bool = False
    bidirectional: bool = False
    attention_score: str = "general"
    input_feeding: bool = False
    attention_units: int | None = None
    deep_output: bool = False
    d_model: int = 128
    num_heads: int = 4
    ff_dim: int = 512
    pre_norm: bool = False
    shared_embeddings: bool = False
    tied_output: bool = False
    max_length: int = 100  # also the length filter of the training pairs
    # Transformer options that Marian (OPUS-MT) models need; see `TransformerFunctional`.
    activation: str = "relu"
    norm_epsilon: float = 1e-6
    position_layout: str = "interleaved"
    scale_embeddings: bool = True
    output_bias: bool = False
