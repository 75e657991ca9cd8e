"""A list of (source, target) pairs with the counts kept while reading it."""

from __future__ import annotations

import dataclasses

from keras_nmt.plural import plural

# Human-readable names of the skip reasons used by the readers of
# `keras_nmt.workshop.corpora.corpus`.
SKIP_REASONS = {
    "columns": "wrong column count",
    "empty_side": "empty side",
    "utf8": "invalid UTF-8",
    "invisible": "side empty once invisible characters are removed",
}
# How many skipped lines keep their FILE:LINE for the report.
MAX_REPORTED_SKIPS = 5


@dataclasses.dataclass
class CorpusStats:
    """What a corpus reader read, kept, skipped and filtered.

    Attributes:
        source: where the pairs came from (a path, or e.g. ``"dates:train"``).
        read: lines read (for line-aligned files: line pairs), blank lines included.
        kept: pairs returned.
        skipped: malformed lines skipped (``on_error="skip"``), by reason (keys of
            ``SKIP_REASONS``: ``"columns"``, ``"empty_side"``, ``"utf8"``).
        blank: completely blank lines of a tab-separated file, ignored silently.
        filtered_too_long: well-formed pairs dropped because a side had more than ``max_chars``
            characters.
        max_chars: the limit used, or ``None``.
        first_skipped: ``"FILE:LINE"`` of the first skipped lines (at most 5).
        header: the first line, when it read as column names and was skipped (see
            `keras_nmt.workshop.corpora.data_profile.looks_like_header`), else ``None``.

    Invariant: ``read == kept + sum(skipped.values()) + blank + filtered_too_long``, plus one
    for a skipped header.

    Example:
        >>> stats = CorpusStats("a.tsv", read=5, kept=3, skipped={"columns": 1},
        ...                     filtered_too_long=1, max_chars=20)
        >>> print(stats.summary().replace("; ", ";\n"))
        a.tsv: read 5 lines, kept 3 pairs;
        skipped 1 (1 wrong column count);
        1 longer than 20 characters filtered
    """

    source: str = ""
    read: int = 0
    kept: int = 0
    skipped: dict[str, int] = dataclasses.field(default_factory=dict)
    blank: int = 0
    filtered_too_long: int = 0
    max_chars: int | None = None
    first_skipped: list[str] = dataclasses.field(default_factory=list)
    header: str | None = None

    @property
    def num_skipped(self) -> int:
        """Total malformed lines skipped, all reasons together."""
        return sum(self.skipped.values())

    def count_skip(self, reason: str, where: str | None = None) -> None:
        """Counts one skipped line under ``reason``; ``where`` is its ``"FILE:LINE"``."""
        self.skipped[reason] = self.skipped.get(reason, 0) + 1
        if where is not None and len(self.first_skipped) < MAX_REPORTED_SKIPS:
            self.first_skipped.append(where)

    def summary(self) -> str:
        """One readable line, e.g. for the train app's log."""
        parts = [f"{self.source}: read {plural(self.read, 'line')}, kept "
                 f"{plural(self.kept, 'pair')}"]
        if self.skipped:
            reasons = ", ".join(
                f"{count:,} {SKIP_REASONS.get(reason, reason)}"
                for reason, count in sorted(self.skipped.items())
            )
            parts.append(f"skipped {self.num_skipped:,} ({reasons})")
            if self.first_skipped:
                parts.append(f"first skipped: {', '.join(self.first_skipped)}")
        if self.header is not None:
            parts.append(f"line 1 skipped as a header ({self.header!r})")
        if self.blank:
            parts.append(f"{self.blank:,} blank lines ignored")
        if self.max_chars is not None:
            parts.append(
                f"{self.filtered_too_long:,} longer than {self.max_chars} characters filtered"
            )
        return "; ".join(parts)

    def header_warning(self) -> str | None:
        """The loud line that says a header was skipped, or None."""
        if self.header is None:
            return None
        return (f"warning: {self.source}, line 1 reads as column names ({self.header!r}): "
                "skipped, not used as a pair; add --accept-data to use it as one")

    def __str__(self) -> str:
        return self.summary()


@dataclasses.dataclass
class ParallelCorpus:
    """Sentence pairs and how they were read.

    Attributes:
        pairs: ``[(source, target), ...]`` in file order (already oriented: the reader's
            ``source_column`` decides which side is the source).
        stats: counts of lines read, kept, skipped and filtered.

    The object behaves like its list of pairs for ``len``, iteration and indexing, so
    ``make_dataset(corpus, ...)`` and ``make_dataset(corpus.pairs, ...)`` are the same.

    Example:
        >>> corpus = ParallelCorpus([("hola", "hello")], CorpusStats("x.tsv", read=1, kept=1))
        >>> len(corpus), corpus[0]
        (1, ('hola', 'hello'))
    """

    pairs: list[tuple[str, str]]
    stats: CorpusStats

    @property
    def sources(self) -> list[str]:
        """The source sides, in order."""
        return [source for source, _ in self.pairs]

    @property
    def targets(self) -> list[str]:
        """The target sides, in order."""
        return [target for _, target in self.pairs]

    def __len__(self) -> int:
        return len(self.pairs)

    def __iter__(self):
        return iter(self.pairs)

    def __getitem__(self, index):
        return self.pairs[index]
