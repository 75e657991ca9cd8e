"""Scoring a whole test set: every metric at once.

The tokenizers NFKC-normalize what they read, so a translation comes out in NFKC whatever form its
source had, while references are read as given (files written on macOS are often NFD). Scored as
they are, a perfect translation against NFD references loses a third of its BLEU. `score_all`
therefore brings hypotheses and references to the same form, `UNICODE_FORM`, before every metric,
and says so in its result.
"""

import unicodedata
from collections.abc import Iterable

from keras_nmt.metrics.edit_distance import corpus_cer, corpus_wer
from keras_nmt.metrics.references import as_reference_lists
from keras_nmt.metrics.sacrebleu_scores import corpus_bleu, corpus_chrf, exact_match

UNICODE_FORM = "NFKC"  # the tokenizers' own normalization, so that outputs are left as they are


def score_all(hypotheses, references):
    """BLEU, chrF (with sacreBLEU signatures), CER, WER and exact match of a test set, after
    hypotheses and references are both normalized to Unicode `UNICODE_FORM`.

    Args:
        hypotheses: detokenized translations, one per source sentence.
        references: one reference string or a list of them per sentence.

    Returns:
        A dict of plain floats and strings, ready for JSON; ``"unicode_form"`` names the
        normalization applied.

    Example:
        >>> round(score_all(["Caf\u00e9 au lait."], ["Cafe\u0301 au lait."])["bleu"], 6)  # NFC, NFD
        100.0
    """
    hypotheses = [unicodedata.normalize(UNICODE_FORM, text) for text in hypotheses]
    references = [
        [unicodedata.normalize(UNICODE_FORM, text) for text in refs]
        for refs in as_reference_lists(references, len(hypotheses))
    ]
    bleu, chrf = corpus_bleu(hypotheses, references), corpus_chrf(hypotheses, references)
    cer, wer = corpus_cer(hypotheses, references), corpus_wer(hypotheses, references)
    return {
        "sentences": len(hypotheses),
        "bleu": bleu.score,
        "bleu_signature": bleu.signature,
        "chrf": chrf.score,
        "chrf_signature": chrf.signature,
        "cer": cer.rate,
        "wer": wer.rate,
        "exact_match": exact_match(hypotheses, references),
        "unicode_form": UNICODE_FORM,
    }


def group_references(pairs: Iterable[tuple[str, str]]) -> tuple[list[str], list[list[str]]]:
    """Groups ``(source, target)`` pairs by source: one entry per distinct source sentence.

    Tatoeba-derived test sets list a source sentence once per translation; translating each copy
    and scoring it against one translation would penalize correct alternatives. Grouping gives
    every distinct source once, with all its translations as references.

    Sources keep the order of their first occurrence; a source's references keep their order of
    occurrence, with exact duplicates dropped (a duplicated reference changes nothing in BLEU or
    chrF except the reference count in the signature). Strings are compared as given (no
    normalization).

    Returns ``(sources, references)``: the distinct sources, and a non-empty list of references
    for each.

    Example:
        >>> group_references([("Hola.", "Hi."), ("Adiós.", "Bye."), ("Hola.", "Hello.")])
        (['Hola.', 'Adiós.'], [['Hi.', 'Hello.'], ['Bye.']])
    """
    grouped: dict[str, list[str]] = {}  # dicts keep insertion order: first-occurrence order
    for source, target in pairs:
        refs = grouped.setdefault(source, [])
        if target not in refs:
            refs.append(target)
    return list(grouped), list(grouped.values())
