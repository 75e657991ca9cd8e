"""Training: masked loss and metrics, callbacks and the `train` function.

`train` writes a run directory in the format of `keras_nmt.inference.run_directory` and
translates through `keras_nmt.inference.Translator` (layering: docs/architecture.md); a
`Task` (`task.py`; `TranslationTask` reads corpora) gives it the pairs and the training batches.
"""
