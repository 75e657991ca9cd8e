"""Corpus readers, the built-in dataset and the tf.data pipeline.

- `load_corpus(spec, split=None, ...)`: a ``--data`` value (built-in name, path, ``{split}``
  template, ``SOURCE,TARGET`` files or Anki name) -> `ParallelCorpus` (``.pairs``, ``.stats``).
- `read_tsv`, `read_aligned`: the readers behind it; `download`: manythings.org Anki zips.
- `builtin_pairs("dates", split, size, seed)`: dates in human formats -> ISO ``YYYY-MM-DD``.
- `make_dataset(pairs, source_tokenizer, target_tokenizer, batch_size, ...)`: padded,
  length-bucketed teacher-forcing batches; `tokenize_pairs`, `measure_padding`.
"""

from keras_nmt.data.builtin import BUILTIN_DATASETS, builtin_pairs
from keras_nmt.data.corpus import has_splits, load_corpus, read_aligned, read_tsv
from keras_nmt.data.corpus_error import CorpusError
from keras_nmt.data.corpus_stats import CorpusStats
from keras_nmt.data.download import anki_url, download
from keras_nmt.data.download_error import DownloadError
from keras_nmt.data.padding_stats import PaddingStats
from keras_nmt.data.parallel_corpus import ParallelCorpus
from keras_nmt.data.pipeline import make_dataset, measure_padding, tokenize_pairs
from keras_nmt.data.tokenized_pairs import TokenizedPairs

__all__ = [
    "BUILTIN_DATASETS",
    "CorpusError",
    "CorpusStats",
    "DownloadError",
    "PaddingStats",
    "ParallelCorpus",
    "TokenizedPairs",
    "anki_url",
    "builtin_pairs",
    "download",
    "has_splits",
    "load_corpus",
    "make_dataset",
    "measure_padding",
    "read_aligned",
    "read_tsv",
    "tokenize_pairs",
]
