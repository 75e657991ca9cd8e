"""Levenshtein edit distance in plain Python, and corpus word / character error rates.

The distance between sequences ``a`` and ``b`` is the cheapest way to turn ``a`` into ``b`` with
deletions (of items of ``a``), insertions (of items of ``b``) and substitutions (Levenshtein, 1966).
The Wagner-Fischer dynamic programme fills the table
``D[i][j] = cost of turning a[:i] into b[:j]``::

    D[i][0] = i * deletion_cost,   D[0][j] = j * insertion_cost
    D[i][j] = min(D[i-1][j] + deletion_cost,
                  D[i][j-1] + insertion_cost,
                  D[i-1][j-1] + (0 if a[i-1] == b[j-1] else substitution_cost))

and a backtrace from ``D[len(a)][len(b)]`` recovers one optimal alignment. Among equally cheap
moves the backtrace prefers the diagonal (hit or substitution), then a deletion, then an insertion,
so the reported counts are deterministic.

WER and CER follow the usual speech-recognition definition: reference as ``a``, hypothesis as
``b``, unit costs, and edits summed over the corpus divided by the total reference length.

References:
    Levenshtein (1966). Binary codes capable of correcting deletions, insertions, and reversals.
    Soviet Physics Doklady 10(8).
    Wagner, Fischer (1974). The String-to-String Correction Problem. JACM 21(1).
"""

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass

from keras_nmt.metrics.references import References, as_reference_lists


@dataclass(frozen=True)
class Alignment:
    """The result of `levenshtein(a, b)`.

    The counts describe one optimal alignment that turns sequence ``a`` into sequence ``b``: a
    deletion removes an item of ``a``, an insertion adds an item of ``b``, a substitution replaces
    an item of ``a`` by a different item of ``b`` and a hit keeps an item. With ``a`` the
    reference and ``b`` the hypothesis these are the deletions and insertions of WER.

    Invariants: ``hits + substitutions + deletions == len(a)``,
    ``hits + substitutions + insertions == len(b)`` and
    ``distance == substitutions * substitution_cost + deletions * deletion_cost
    + insertions * insertion_cost``.

    Example:
        >>> Alignment(distance=1, substitutions=0, deletions=1, insertions=0, hits=5).edits
        1
    """

    distance: float  # the total cost, under the costs it was computed with
    substitutions: int
    deletions: int
    insertions: int
    hits: int

    @property
    def edits(self) -> int:
        """Number of edit operations, ``substitutions + deletions + insertions`` (unit costs)."""
        return self.substitutions + self.deletions + self.insertions


@dataclass(frozen=True)
class ErrorRate:
    """A corpus-level error rate (WER, CER, token error rate) and its parts.

    ``rate = edits / max(reference_length, 1)`` where both counts are summed over the whole corpus
    (not the mean of sentence-level rates, which would let short sentences weigh as much as long
    ones). The rate is a fraction (0.25 means 25 %), and can exceed 1 when the hypotheses insert a
    lot. With an empty reference corpus the denominator is 1, so the rate is the number of inserted
    items (0 when the hypotheses are empty too).

    Example:
        >>> str(ErrorRate(0.25, 1, 1, 0, 0, 4))
        '0.2500 (1 edits = S 1 + D 0 + I 0, over 4 reference items)'
    """

    rate: float  # a Python float
    edits: int  # substitutions + deletions + insertions
    substitutions: int  # summed over the corpus, as the two below
    deletions: int  # reference items missing from the hypotheses
    insertions: int  # hypothesis items not in the references
    reference_length: int  # reference words (characters) in all

    def __str__(self) -> str:
        return (f"{self.rate:.4f} ({self.edits} edits = S {self.substitutions} + D {self.deletions}"
                f" + I {self.insertions}, over {self.reference_length} reference items)")


def edit_distance_table(a: Sequence[Hashable], b: Sequence[Hashable], *,
                        substitution_cost: float = 1, insertion_cost: float = 1,
                        deletion_cost: float = 1) -> list[list[float]]:
    """The full Wagner-Fischer table of costs between prefixes of ``a`` and ``b``.

    Args:
        a: The sequence to transform (a string: characters; a list: tokens), length ``n``.
        b: The target sequence, length ``m``.
        substitution_cost: Cost of replacing one item by a different one.
        insertion_cost: Cost of inserting one item of ``b``.
        deletion_cost: Cost of deleting one item of ``a``.

    Returns:
        ``(n + 1) x (m + 1)`` nested lists: row ``i`` is the prefix ``a[:i]``, column ``j`` the
        prefix ``b[:j]``; ``table[n][m]`` is the distance.

    Example:
        >>> edit_distance_table("ab", "b")
        [[0, 1], [1, 1], [2, 1]]
    """
    n, m = len(a), len(b)
    table = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(1, n + 1):
        table[i][0] = table[i - 1][0] + deletion_cost
    for j in range(1, m + 1):
        table[0][j] = table[0][j - 1] + insertion_cost
    for i in range(1, n + 1):
        row, previous = table[i], table[i - 1]
        for j in range(1, m + 1):
            diagonal = previous[j - 1] + (0 if a[i - 1] == b[j - 1] else substitution_cost)
            row[j] = min(diagonal, previous[j] + deletion_cost, row[j - 1] + insertion_cost)
    return table


def levenshtein(a: Sequence[Hashable], b: Sequence[Hashable], *,
                substitution_cost: float = 1, insertion_cost: float = 1,
                deletion_cost: float = 1) -> Alignment:
    """Edit distance from ``a`` to ``b`` and the operation counts of one optimal alignment.

    Time and memory are O(len(a) * len(b)), fine for sentences (not for whole documents).

    Args:
        a: The sequence to transform (the reference, for WER/CER), length ``n``.
        b: The target sequence (the hypothesis, for WER/CER), length ``m``.
        substitution_cost: Cost of replacing one item by a different one (2 gives the variant
            in which a substitution is as expensive as a deletion plus an insertion).
        insertion_cost: Cost of inserting one item of ``b``.
        deletion_cost: Cost of deleting one item of ``a``.

    Returns:
        `Alignment` with the distance and the substitution / deletion / insertion / hit counts.

    Example:
        >>> levenshtein("intention", "execution").distance
        5
        >>> levenshtein("intention", "execution", substitution_cost=2).distance
        8
        >>> levenshtein("the cat sat".split(), "the cat".split())
        Alignment(distance=1, substitutions=0, deletions=1, insertions=0, hits=2)
    """
    table = edit_distance_table(a, b, substitution_cost=substitution_cost,
                                insertion_cost=insertion_cost, deletion_cost=deletion_cost)
    substitutions = deletions = insertions = hits = 0
    i, j = len(a), len(b)
    while i > 0 or j > 0:
        here = table[i][j]
        if i > 0 and j > 0:
            same = a[i - 1] == b[j - 1]
            if here == table[i - 1][j - 1] + (0 if same else substitution_cost):
                hits += same
                substitutions += not same
                i, j = i - 1, j - 1
                continue
        if i > 0 and here == table[i - 1][j] + deletion_cost:
            deletions += 1
            i -= 1
        else:  # the only move left: the table was filled from these three
            insertions += 1
            j -= 1
    return Alignment(table[len(a)][len(b)], substitutions, deletions, insertions, hits)


def words(text: str) -> list[str]:
    """WER's units: ``text.split()`` (any run of whitespace separates words; no punctuation split).

    Hypotheses and references are compared as given, so "cat." and "cat" are different words;
    tokenize both sides the same way beforehand if that is not wanted.
    """
    return text.split()


def characters(text: str) -> list[str]:
    """CER's units: the characters of the text with whitespace runs collapsed to one space.

    Spaces between words count as characters (a missing space is an error), but leading, trailing
    and repeated whitespace, which detokenizers produce inconsistently, does not.
    """
    return list(" ".join(text.split()))


def corpus_error_rate(hypotheses: Sequence[Sequence[Hashable]],
                      references: Sequence[Sequence[Sequence[Hashable]]]) -> ErrorRate:
    """Corpus error rate of already split sequences: total edits / total reference length.

    Unit costs. With several references for a sentence, the hypothesis is scored against the
    reference needing the fewest edits (the first one among ties), and that reference's length
    enters the denominator.

    Args:
        hypotheses: ``num_sentences`` sequences of units (words, characters, token ids).
        references: ``num_sentences`` non-empty lists of reference sequences.

    Returns:
        `ErrorRate` with ``rate = edits / max(reference_length, 1)``: an empty reference corpus
        scores 0 against empty hypotheses and the number of inserted items otherwise.

    Example:
        >>> corpus_error_rate([["a", "b"]], [[["a", "c", "d"]]]).rate
        0.6666666666666666
    """
    if len(hypotheses) != len(references):
        raise ValueError(f"{len(hypotheses)} hypotheses but {len(references)} reference entries")
    substitutions = deletions = insertions = reference_length = 0
    for hypothesis, refs in zip(hypotheses, references, strict=True):
        if not refs:
            raise ValueError("a sentence has no reference")
        best, best_ref = None, None
        for ref in refs:
            alignment = levenshtein(ref, hypothesis)
            if best is None or alignment.edits < best.edits:
                best, best_ref = alignment, ref
        substitutions += best.substitutions
        deletions += best.deletions
        insertions += best.insertions
        reference_length += len(best_ref)
    edits = substitutions + deletions + insertions
    return ErrorRate(edits / max(reference_length, 1), edits, substitutions, deletions, insertions,
                     reference_length)


def _string_error_rate(hypotheses: Sequence[str], references: References,
                       split: Callable[[str], list[str]]) -> ErrorRate:
    if isinstance(hypotheses, str):
        raise TypeError("hypotheses must be a sequence of strings, not one string")
    lists = as_reference_lists(references, len(hypotheses))
    return corpus_error_rate([split(h) for h in hypotheses],
                             [[split(r) for r in refs] for refs in lists])


def corpus_wer(hypotheses: Sequence[str], references: References) -> ErrorRate:
    """Corpus word error rate: total word edits / total reference words.

    Words are whitespace-separated (`words`); no case folding or punctuation handling.

    Args:
        hypotheses: ``num_sentences`` hypothesis strings.
        references: ``num_sentences`` entries, each a reference string or a sequence of them
            (the closest reference is used, see `corpus_error_rate`).

    Returns:
        `ErrorRate` over words.

    Example:
        >>> corpus_wer(["the cat sat", "hi"], ["the cat sat down", "hi"]).rate  # 1 / (4 + 1)
        0.2
    """
    return _string_error_rate(hypotheses, references, words)


def corpus_cer(hypotheses: Sequence[str], references: References) -> ErrorRate:
    """Corpus character error rate: total character edits / total reference characters.

    The arguments are `corpus_wer`'s; the `ErrorRate` is over characters after collapsing
    whitespace runs (`characters`); spaces count.

    Example:
        >>> corpus_cer(["hella"], ["hello"]).rate
        0.2
    """
    return _string_error_rate(hypotheses, references, characters)
