"""How much of a dataset's batches is padding: what length bucketing saves (the training
benchmark reports it for the batches `keras_nmt.data.pipeline.make_dataset` makes)."""

import dataclasses

import numpy as np
import tensorflow as tf

from keras_nmt.plural import plural


@dataclasses.dataclass
class PaddingStats:
    """How many real tokens and how many padding slots a dataset's batches hold.

    Computed by `measure_padding`. ``*_tokens`` count non-zero ids,
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
            f"{plural(self.batches, 'batch')}, {plural(self.sequences, 'pair')}; padding: "
            f"source {self.source_padding_fraction:.1%}, "
            f"target {self.target_padding_fraction:.1%}, "
            f"all {self.padding_fraction:.1%}"
        )


def measure_padding(dataset: tf.data.Dataset, max_batches: int | None = None) -> PaddingStats:
    """Counts real tokens and padding cells over a dataset from `make_dataset`.

    Args:
        dataset: yields ``({"encoder_tokens", "decoder_tokens"}, targets)``.
        max_batches: stop after this many batches (required for a repeated dataset).

    Returns:
        `PaddingStats`; e.g. ``measure_padding(ds).padding_fraction`` is the share of all
        source and target cells that hold ``PAD_ID``.
    """
    stats = PaddingStats()
    for inputs, targets in dataset:
        if max_batches is not None and stats.batches >= max_batches:
            break
        encoder = inputs["encoder_tokens"].numpy()
        target = targets.numpy()
        stats.batches += 1
        stats.sequences += encoder.shape[0]
        stats.source_tokens += int(np.count_nonzero(encoder))
        stats.source_slots += encoder.size
        stats.target_tokens += int(np.count_nonzero(target))
        stats.target_slots += target.size
    return stats
