"""Corpus readers, the built-in dataset and the tf.data pipeline.

- `load_corpus(spec, split=None, ...)`: a ``--data`` value (built-in name, path, ``{split}``
  template, ``SOURCE,TARGET`` files or Anki name) -> `ParallelCorpus` (``.pairs``, ``.stats``).
- `read_tsv`, `read_aligned`: the readers behind it; `download`: manythings.org Anki zips.
- `builtin_pairs("dates", split, size, seed)`: dates in human formats -> ISO ``YYYY-MM-DD``.
- `make_dataset(pairs, source_tokenizer, target_tokenizer, batch_size, ...)`: padded,
  length-bucketed teacher-forcing batches; `tokenize_pairs`, `measure_padding`.
"""

from keras_nmt._lazy import lazy_package

__all__ = lazy_package(
    __name__,
    {
        "BUILTIN_DATASETS": "keras_nmt.data.builtin",
        "CorpusError": "keras_nmt.data.errors",
        "CorpusStats": "keras_nmt.data.parallel_corpus",
        "DownloadError": "keras_nmt.data.errors",
        "PaddingStats": "keras_nmt.data.tokenized_pairs",
        "ParallelCorpus": "keras_nmt.data.parallel_corpus",
        "TokenizedPairs": "keras_nmt.data.tokenized_pairs",
        "anki_url": "keras_nmt.data.download",
        "builtin_pairs": "keras_nmt.data.builtin",
        "download": "keras_nmt.data.download",
        "has_splits": "keras_nmt.data.corpus",
        "load_corpus": "keras_nmt.data.corpus",
        "make_dataset": "keras_nmt.data.pipeline",
        "measure_padding": "keras_nmt.data.pipeline",
        "read_aligned": "keras_nmt.data.corpus",
        "read_tsv": "keras_nmt.data.corpus",
        "tokenize_pairs": "keras_nmt.data.pipeline",
    },
)
