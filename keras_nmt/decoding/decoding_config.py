"""All decoding options in one serializable value, for the apps and the exported Translator."""

import dataclasses
from typing import Any

from keras_nmt.decoding import _common

STRATEGIES = ("greedy", "beam", "sample")

# The options each strategy accepts besides (model, encoder_tokens).
_COMMON = (
    "max_length", "max_length_a", "max_length_b", "return_attention", "trim", "batch_cache"
)
STRATEGY_OPTIONS = {
    "greedy": _COMMON,
    "beam": _COMMON
    + ("beam_size", "n_best", "normalization", "length_penalty", "coverage_penalty"),
    "sample": _COMMON + ("temperature", "top_k", "top_p", "seed"),
}


@dataclasses.dataclass(frozen=True)
class DecodingConfig:
    """A decoding strategy and its options (see ``greedy_decode``, ``beam_search``,
    ``sample_decode`` for their meaning).

    ``to_dict()`` / ``from_dict()`` give plain JSON-ready values (run ``config.json``, export
    metadata); ``options()`` gives the keyword arguments of the chosen strategy only.

    Attributes:
        strategy: ``"greedy"``, ``"beam"`` or ``"sample"``.
        max_length: the most tokens per hypothesis, ``END`` included (``None``: 100, or the
            model's own ``max_length`` when smaller).
        max_length_a: ``a`` of the per-sentence limit ``ceil(a * source_len + b)``.
        max_length_b: ``b`` of that limit.
        return_attention: also return attention weights (attention models).
        trim: cut outputs to the longest hypothesis.
        batch_cache: size the model's caches to the batch's longest limit (not ``max_length``).
        beam_size: beam search width.
        n_best: hypotheses returned per sentence by beam search (``None``: ``beam_size``).
        normalization: ``"none"``, ``"average"`` or ``"gnmt"``.
        length_penalty: GNMT ``alpha``.
        coverage_penalty: GNMT ``beta``.
        temperature: sampling temperature (0: arg-max).
        top_k: sampling top-k (``None``: off).
        top_p: sampling nucleus mass (``None``: off).
        seed: sampling seed (python int, or ``None``).
    """

    strategy: str = "greedy"
    max_length: int | None = None
    max_length_a: float = _common.DEFAULT_MAX_LENGTH_A
    max_length_b: float = _common.DEFAULT_MAX_LENGTH_B
    return_attention: bool = False
    trim: bool = True
    batch_cache: bool = True
    beam_size: int = 4
    n_best: int | None = None
    normalization: str = "gnmt"
    length_penalty: float = 0.6
    coverage_penalty: float = 0.0
    temperature: float = 1.0
    top_k: int | None = None
    top_p: float | None = None
    seed: int | None = None

    def __post_init__(self):
        if self.strategy not in STRATEGIES:
            raise ValueError(f"strategy must be one of {STRATEGIES}, got {self.strategy!r}")

    def options(self) -> dict[str, Any]:
        """Keyword arguments for the chosen strategy's function."""
        return {name: getattr(self, name) for name in STRATEGY_OPTIONS[self.strategy]}

    def to_dict(self) -> dict[str, Any]:
        """Every field as a plain python value."""
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, values: dict[str, Any]) -> "DecodingConfig":
        """Inverse of ``to_dict``; unknown keys raise ``TypeError``."""
        return cls(**values)

    def replace(self, **changes) -> "DecodingConfig":
        """A copy with some fields changed."""
        return dataclasses.replace(self, **changes)
