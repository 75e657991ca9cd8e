"""Pretrained models: Marian (OPUS-MT) checkpoints imported into the Transformer twins.

Example:
    >>> import_marian("opus-mt-es-en", "runs/opus-es-en", api="subclassed")  # doctest: +SKIP
    >>> keras_nmt.inference.open_translator("runs/opus-es-en").translate_texts(["Hola."])
"""

from keras_nmt._lazy import lazy_package

__all__ = lazy_package(
    __name__,
    {
        "ImportResult": "keras_nmt.pretrained.marian_import",
        "MarianCheckpoint": "keras_nmt.pretrained.marian_checkpoint",
        "MarianImportError": "keras_nmt.pretrained.marian_checkpoint",
        "import_marian": "keras_nmt.pretrained.marian_import",
        "read_marian": "keras_nmt.pretrained.marian_checkpoint",
        "read_safetensors": "keras_nmt.pretrained.safetensors_file",
    },
)
