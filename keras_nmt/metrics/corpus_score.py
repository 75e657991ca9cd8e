"""`CorpusScore`: a corpus-level score with the sacreBLEU signature that reproduces it."""

from dataclasses import dataclass


@dataclass(frozen=True)
class CorpusScore:
    """A corpus-level score and the signature that makes it reproducible.

    sacreBLEU (Post, 2018, "A Call for Clarity in Reporting BLEU Scores") asks that every reported
    score carry its signature (number of references, case, tokenization, smoothing, version), since
    BLEU numbers computed with different settings are not comparable.

    Attributes:
        name: The metric's name as sacreBLEU prints it, e.g. ``"BLEU"``, ``"chrF2"``, ``"chrF2++"``.
        score: The score on sacreBLEU's 0-100 scale, a Python float.
        signature: sacreBLEU's signature string, e.g.
            ``"nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:2.6.0"``; ``nrefs:var`` when the
            number of references differs from sentence to sentence.
        details: sacreBLEU's own one-line report (for BLEU: n-gram precisions, brevity penalty and
            lengths), empty when not available.

    Example:
        >>> str(CorpusScore("BLEU", 34.5, "nrefs:1|case:mixed|tok:13a|version:2.6.0"))
        'BLEU = 34.50 (nrefs:1|case:mixed|tok:13a|version:2.6.0)'
    """

    name: str
    score: float
    signature: str
    details: str = ""

    def __str__(self) -> str:
        return f"{self.name} = {self.score:.2f} ({self.signature})"
