"""Spelling correction as sequence-to-sequence learning: noisy text in, clean text out.

- `SpellingData`: clean sentences split three ways, fixed noisy validation/test pairs, fresh
  training noise every pass (`noisy_dataset.make_noisy_dataset`).
- `train_speller(config, data)`: `keras_nmt.training.train` plus the test report.
- `spelling_report(noisy, corrected, clean, vocabulary)`: CER/WER before and after,
  changed-correct, fixed and hallucination rates (`report`).
- `compare_levels`, `markdown_table`, `write_comparison`: char vs word vs subword.

The noise itself is `keras_nmt.data.noise.NoiseGenerator`. Only `report` and `sentences` load
without TensorFlow; the training parts import it.
"""

from keras_nmt.spelling.report import (
    align_words,
    clean_vocabulary,
    format_report,
    spelling_report,
    vocabulary_key,
)
from keras_nmt.spelling.sentences import read_sentences, split_sentences
from keras_nmt.spelling.spelling_data import SpellingData

__all__ = [
    "SpellingData",
    "align_words",
    "clean_vocabulary",
    "format_report",
    "read_sentences",
    "spelling_report",
    "split_sentences",
    "vocabulary_key",
]
