"""The built-in dataset and the tf.data pipeline.

- `builtin_pairs("dates", split, size, seed)`: dates in human formats -> ISO ``YYYY-MM-DD``.
- `make_dataset(pairs, source_tokenizer, target_tokenizer, batch_size, ...)`: padded,
  length-bucketed teacher-forcing batches; `tokenize_pairs`, `measure_padding`.

Corpus files (TSV, aligned files, compressed, downloaded) are read by the workshop's
`keras_nmt.workshop.corpora`.
"""
