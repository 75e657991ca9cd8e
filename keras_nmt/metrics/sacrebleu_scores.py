"""Corpus BLEU and chrF through sacreBLEU, and exact-match accuracy.

The scores are computed on detokenized text (what a user reads) against the raw references, with
sacreBLEU's own tokenization (``13a`` by default) and mixed case, so that they are comparable with
published numbers and carry a signature (Post, 2018, "A Call for Clarity in Reporting BLEU Scores").
Nothing here tokenizes, lower-cases or otherwise touches the strings before sacreBLEU.

Every function takes ``hypotheses``, one detokenized string per sentence, and ``references``,
one reference string or a sequence of them per sentence (the count may vary: see
`references.reference_streams`); an empty corpus, a length mismatch or a sentence without a
reference raises ``ValueError``.

References:
    Papineni, Roukos, Ward, Zhu (2002). BLEU: a Method for Automatic Evaluation of Machine
    Translation. ACL.
    Popović (2015). chrF: character n-gram F-score for automatic MT evaluation. WMT.
    Post (2018). A Call for Clarity in Reporting BLEU Scores. WMT.
"""

from collections.abc import Sequence
from dataclasses import dataclass

from sacrebleu.metrics import BLEU, CHRF

from keras_nmt.metrics.references import References, as_reference_lists, reference_streams


@dataclass(frozen=True)
class CorpusScore:
    """A corpus-level score and the signature that makes it reproducible.

    Every reported score carries its signature (number of references, case, tokenization,
    smoothing, version): BLEU computed with other settings is not comparable (Post, 2018).

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


def _check_hypotheses(hypotheses: Sequence[str], references: References) -> None:
    if isinstance(hypotheses, str) or not all(isinstance(h, str) for h in hypotheses):
        raise TypeError("hypotheses must be a sequence of strings")
    if len(hypotheses) == 0:
        raise ValueError("cannot score an empty corpus")
    as_reference_lists(references, len(hypotheses))  # length and emptiness checks


def corpus_bleu(hypotheses: Sequence[str], references: References, *, tokenize: str = "13a",
                lowercase: bool = False) -> CorpusScore:
    """Corpus BLEU (Papineni et al., 2002) computed by sacreBLEU.

    Args:
        tokenize: sacreBLEU tokenizer (``"13a"``, the WMT standard; ``"intl"``, ``"char"``, ...).
        lowercase: Case-insensitive BLEU when True (the default, mixed case, is the standard).

    Returns:
        `CorpusScore` with name ``"BLEU"``, the score on 0-100 and sacreBLEU's signature.

    Example:
        >>> corpus_bleu(["The cat sat on the mat."], ["The cat sat on the mat."]).score
        100.00000000000004
    """
    return _corpus_score(BLEU(tokenize=tokenize, lowercase=lowercase), hypotheses, references)


def corpus_chrf(hypotheses: Sequence[str], references: References, *, char_order: int = 6,
                word_order: int = 0, beta: int = 2) -> CorpusScore:
    """Corpus chrF (Popović, 2015) computed by sacreBLEU; chrF++ with ``word_order=2``.

    Character n-gram F-score: less sensitive than BLEU to morphology and to the absence of
    exact word matches, and meaningful on single sentences and short texts.

    Args:
        char_order: Maximum character n-gram order (6 in the paper).
        word_order: Maximum word n-gram order (0: chrF; 2: chrF++).
        beta: Weight of recall relative to precision (2 in the paper).

    Returns:
        `CorpusScore` with sacreBLEU's name (``"chrF2"``, ``"chrF2++"``), the score on 0-100 and
        the signature.

    Example:
        >>> corpus_chrf(["Hello world!"], ["Hello world!"]).score
        100.0
    """
    metric = CHRF(char_order=char_order, word_order=word_order, beta=beta)
    return _corpus_score(metric, hypotheses, references)


def _corpus_score(metric, hypotheses, references):
    """Checks the inputs and scores them with a sacreBLEU `metric` (its name, score, signature)."""
    _check_hypotheses(hypotheses, references)
    result = metric.corpus_score(list(hypotheses), reference_streams(references))
    return CorpusScore(result.name, float(result.score), str(metric.get_signature()), str(result))


def exact_match(hypotheses: Sequence[str], references: References) -> float:
    """Fraction of hypotheses equal to at least one of their references, after ``str.strip()``.

    Only surrounding whitespace is ignored: case, punctuation and inner spacing must match.

    Returns:
        A Python float in [0, 1].

    Example:
        >>> exact_match(["Hi. ", "Bye"], [["Hello.", "Hi."], "Bye!"])
        0.5
    """
    _check_hypotheses(hypotheses, references)
    lists = as_reference_lists(references)
    hits = sum(any(hyp.strip() == ref.strip() for ref in refs)
               for hyp, refs in zip(hypotheses, lists, strict=True))
    return hits / len(hypotheses)
