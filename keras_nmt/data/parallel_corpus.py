"""A list of (source, target) pairs with the statistics of how it was read."""

from __future__ import annotations

import dataclasses

from keras_nmt.data.corpus_stats import CorpusStats


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
