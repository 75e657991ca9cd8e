"""The tf.data pipeline: string pairs in, teacher-forcing batches out.

- `make_dataset(pairs, source_tokenizer, target_tokenizer, batch_size, ...)`: padded,
  length-bucketed teacher-forcing batches; `tokenize_pairs`.

The pairs come from the workshop's `keras_nmt.workshop.corpora`: the built-in dates
(`builtin.builtin_pairs`, generated) and corpus files (TSV, aligned files, compressed, downloaded).
"""
