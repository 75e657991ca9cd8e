"""Corpus readers, the built-in dataset and the tf.data pipeline.

- `load_corpus(spec, split=None, ...)`: a ``--data`` value (built-in name, path, ``{split}``
  template, ``SOURCE,TARGET`` files or Anki name) -> `ParallelCorpus` (``.pairs``, ``.stats``).
- `read_tsv`, `read_aligned`: the readers behind it; `download`: manythings.org Anki zips.
- `builtin_pairs("dates", split, size, seed)`: dates in human formats -> ISO ``YYYY-MM-DD``.
- `make_dataset(pairs, source_tokenizer, target_tokenizer, batch_size, ...)`: padded,
  length-bucketed teacher-forcing batches; `tokenize_pairs`, `measure_padding`.
"""
