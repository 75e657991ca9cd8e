"""Token and padding counts of a batched dataset."""

from __future__ import annotations

import dataclasses


@dataclasses.dataclass
class PaddingStats:
    """How many real tokens and how many padding slots a dataset's batches hold.

    Computed by `keras_nmt.data.pipeline.measure_padding`. ``*_tokens`` count non-zero ids,
    ``*_slots`` count all cells (``batch * length`` summed over batches). Target counts are taken
    on ``targets`` (``y + [END]``; ``decoder_tokens`` has the same count).

    Example:
        >>> stats = PaddingStats(batches=1, sequences=2, source_tokens=3, source_slots=4,
        ...                      target_tokens=5, target_slots=8)
        >>> stats.padding_fraction
        0.3333333333333333
    """

    batches: int = 0
    sequences: int = 0
    source_tokens: int = 0
    source_slots: int = 0
    target_tokens: int = 0
    target_slots: int = 0

    @staticmethod
    def _fraction(tokens: int, slots: int) -> float:
        return 1.0 - tokens / slots if slots else 0.0

    @property
    def source_padding_fraction(self) -> float:
        """Share of ``encoder_tokens`` cells that are padding."""
        return self._fraction(self.source_tokens, self.source_slots)

    @property
    def target_padding_fraction(self) -> float:
        """Share of ``targets`` cells that are padding."""
        return self._fraction(self.target_tokens, self.target_slots)

    @property
    def padding_fraction(self) -> float:
        """Share of all source and target cells that are padding."""
        return self._fraction(
            self.source_tokens + self.target_tokens, self.source_slots + self.target_slots
        )

    def summary(self) -> str:
        """One readable line."""
        return (
            f"{self.batches:,} batches, {self.sequences:,} pairs; padding: "
            f"source {self.source_padding_fraction:.1%}, "
            f"target {self.target_padding_fraction:.1%}, "
            f"all {self.padding_fraction:.1%}"
        )
