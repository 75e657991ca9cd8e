"""Training: masked loss and metrics, callbacks and the `train` function.

`train` writes a run folder in the format of `keras_nmt.workshop.run.run_folder` and
translates through `keras_nmt.inference.translator.Translator` (layering: docs/architecture.md); a
`Task` (`task.py`; `TranslationTask` reads corpora) gives it the pairs and the training batches.
"""
