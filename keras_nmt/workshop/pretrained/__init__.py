"""Pretrained models: Marian (OPUS-MT) checkpoints imported into the Transformer twins.

Example:
    >>> import_marian("opus-mt-es-en", "runs/opus-es-en", api="subclassed")  # doctest: +SKIP
    >>> keras_nmt.workshop.translators.open_translator("runs/opus-es-en").translate_texts(["Hola."])
"""
