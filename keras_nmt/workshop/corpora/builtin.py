"""Registry of the built-in datasets (generated, no download).

Example:
    >>> pairs = builtin_pairs("dates", split="valid", size=3, seed=0)
    >>> len(pairs), all(len(target) == 10 for _, target in pairs)
    (3, True)
"""

from __future__ import annotations

from keras_nmt.workshop.corpora import dates

# name -> generator(split, size, seed) -> list of (source, target); None size = default size.
BUILTIN_DATASETS = {
    "dates": dates.date_pairs,
}
# name -> {split: default size}
BUILTIN_DEFAULT_SIZES = {
    "dates": dict(dates.DEFAULT_SIZES),
}


def builtin_pairs(
    name: str = "dates", split: str = "train", size: int | None = None, seed: int = 0
) -> list[tuple[str, str]]:
    """Generates a split of a built-in dataset.

    Args:
        name: a key of `BUILTIN_DATASETS` (``"dates"``: human-written dates -> ISO
            ``YYYY-MM-DD``; see `keras_nmt.workshop.corpora.dates`).
        split: ``"train"``, ``"valid"`` or ``"test"``; splits never share an underlying
            example (for dates: a calendar day), nor a source string.
        size: number of pairs; ``None``: `BUILTIN_DEFAULT_SIZES` (dates: 20,000 / 1,000 / 1,000).
        seed: same seed -> identical pairs.

    Returns:
        ``[(source, target), ...]``.
    """
    if name not in BUILTIN_DATASETS:
        raise ValueError(
            f"unknown built-in dataset {name!r}; choose from {sorted(BUILTIN_DATASETS)}"
        )
    return BUILTIN_DATASETS[name](split=split, size=size, seed=seed)
