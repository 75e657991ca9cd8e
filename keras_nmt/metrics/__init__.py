"""Evaluation metrics: BLEU and chrF (sacreBLEU), WER/CER, exact match (no TensorFlow import).

    corpus_bleu, corpus_chrf, exact_match,
    CorpusScore                                 `sacrebleu_scores` (sacreBLEU on detokenized text)
    levenshtein, edit_distance_table, Alignment,
    corpus_error_rate, corpus_wer, corpus_cer,
    ErrorRate                                   `edit_distance`
    as_reference_lists, reference_streams       `references`

The callback that scores translations during `fit` is a training run's
(`keras_nmt.workshop.run.validation_scores.ValidationScores`).
"""

from keras_nmt.metrics.edit_distance import (
    Alignment,
    ErrorRate,
    corpus_cer,
    corpus_error_rate,
    corpus_wer,
    edit_distance_table,
    levenshtein,
)
from keras_nmt.metrics.references import as_reference_lists, reference_streams
from keras_nmt.metrics.sacrebleu_scores import CorpusScore, corpus_bleu, corpus_chrf, exact_match

__all__ = ["Alignment", "CorpusScore", "ErrorRate", "as_reference_lists", "corpus_bleu",
           "corpus_cer", "corpus_chrf", "corpus_error_rate", "corpus_wer", "edit_distance_table",
           "exact_match", "levenshtein", "reference_streams"]
