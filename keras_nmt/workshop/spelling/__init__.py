"""Spelling correction as sequence-to-sequence learning: noisy text in, clean text out.

- `SpellingData`: clean sentences split three ways, fixed noisy validation/test pairs.
- `SpellingTask(data)`: the `keras_nmt.workshop.run.task.TranslationTask` training on them,
  with fresh noise every pass (`noisy_dataset.NoisyStream`) and exact resumption.
- `train_speller(config, data)`: `keras_nmt.workshop.run.trainer.train` plus the test report.
- `spelling_report(noisy, corrected, clean, vocabulary)`: CER/WER before and after,
  changed-correct, fixed and hallucination rates (`report`).
- `compare_correctors`, `markdown_table`, `write_comparison`: char vs word vs subword, and
  the models (seq2seq against the aligned CTC model) on the same data.

The noise itself is `keras_nmt.workshop.spelling.noise.NoiseGenerator`. Only `report` and
`sentences` load without TensorFlow; the training parts import it.
"""
