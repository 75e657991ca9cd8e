"""`Alignment`: the cost of an optimal Levenshtein alignment and the edit operations it uses."""

from dataclasses import dataclass


@dataclass(frozen=True)
class Alignment:
    """The result of `keras_nmt.metrics.edit_distance.levenshtein(a, b)`.

    The counts describe one optimal alignment that turns sequence ``a`` into sequence ``b``
    (Levenshtein, 1966, "Binary codes capable of correcting deletions, insertions, and reversals"):
    a deletion removes an item of ``a``, an insertion adds an item of ``b``, a substitution replaces
    an item of ``a`` by a different item of ``b`` and a hit keeps an item. With ``a`` the reference
    and ``b`` the hypothesis these are the deletions and insertions of WER.

    Invariants: ``hits + substitutions + deletions == len(a)``,
    ``hits + substitutions + insertions == len(b)`` and
    ``distance == substitutions * substitution_cost + deletions * deletion_cost
    + insertions * insertion_cost``.

    Attributes:
        distance: Total cost of the alignment under the costs it was computed with.
        substitutions: Number of substituted items.
        deletions: Number of items of ``a`` deleted.
        insertions: Number of items of ``b`` inserted.
        hits: Number of items kept unchanged.

    Example:
        >>> Alignment(distance=1, substitutions=0, deletions=1, insertions=0, hits=5).edits
        1
    """

    distance: float
    substitutions: int
    deletions: int
    insertions: int
    hits: int

    @property
    def edits(self) -> int:
        """Number of edit operations, ``substitutions + deletions + insertions`` (unit costs)."""
        return self.substitutions + self.deletions + self.insertions
