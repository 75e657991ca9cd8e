"""`ErrorRate`: a corpus word or character error rate with the counts it is made of."""

from dataclasses import dataclass


@dataclass(frozen=True)
class ErrorRate:
    """A corpus-level error rate (WER, CER, token error rate) and its parts.

    ``rate = edits / max(reference_length, 1)`` where both counts are summed over the whole corpus
    (not the mean of sentence-level rates, which would let short sentences weigh as much as long
    ones). The rate is a fraction (0.25 means 25 %), and can exceed 1 when the hypotheses insert a
    lot. With an empty reference corpus the denominator is 1, so the rate is the number of inserted
    items (0 when the hypotheses are empty too).

    Attributes:
        rate: ``edits / max(reference_length, 1)``, a Python float.
        edits: ``substitutions + deletions + insertions``.
        substitutions: Total substitutions over the corpus.
        deletions: Total deletions (reference items missing from the hypotheses).
        insertions: Total insertions (hypothesis items not in the references).
        reference_length: Total number of reference words (characters).

    Example:
        >>> str(ErrorRate(0.25, 1, 1, 0, 0, 4))
        '0.2500 (1 edits = S 1 + D 0 + I 0, over 4 reference items)'
    """

    rate: float
    edits: int
    substitutions: int
    deletions: int
    insertions: int
    reference_length: int

    def __str__(self) -> str:
        return (
            f"{self.rate:.4f} ({self.edits} edits = S {self.substitutions} + D {self.deletions}"
            f" + I {self.insertions}, over {self.reference_length} reference items)"
        )
