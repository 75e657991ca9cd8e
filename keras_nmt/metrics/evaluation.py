"""Scoring a whole test set: every metric at once, as a table."""

from keras_nmt import markdown
from keras_nmt.metrics.edit_distance import corpus_cer, corpus_wer
from keras_nmt.metrics.sacrebleu_scores import corpus_bleu, corpus_chrf, exact_match


def score_all(hypotheses, references):
    """BLEU, chrF (with sacreBLEU signatures), CER, WER and exact match of a test set.

    Args:
        hypotheses: detokenized translations, one per source sentence.
        references: one reference string or a list of them per sentence.

    Returns:
        A dict of plain floats and strings, ready for JSON.
    """
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
    }


def format_table(scores):
    """A Markdown table of `score_all`'s result (plus any extra numeric entries)."""
    rows = [
        [key, f"{value:.4f}" if isinstance(value, float) else str(value)]
        for key, value in scores.items()
        if not key.endswith("_signature")
    ]
    signatures = [
        f"{key.split('_')[0]} signature: {value}"
        for key, value in scores.items()
        if key.endswith("_signature")
    ]
    return "\n".join([markdown.table(["metric", "value"], rows), "", *signatures])
