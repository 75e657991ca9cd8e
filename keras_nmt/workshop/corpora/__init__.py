"""Corpus files: the readers behind ``--data``, and what they check on the way.

- `corpus.load_corpus(spec, split=None, ...)`: a ``--data`` value (built-in name, path,
  ``{split}`` template, ``SOURCE,TARGET`` files or Anki name) -> `ParallelCorpus` (``.pairs``,
  ``.stats``); `read_tsv`, `read_aligned`: the readers behind it (plain, ``.gz``, ``.xz``,
  ``.zip``); `download`: manythings.org Anki zips.
- `corpus_checks`, `raw_lines`: damaged compressed files, bad lines, lines read in bounded
  memory, each error naming the file and line (`CorpusError`).
- `data_profile`: what a training set looks like (words and characters per side) and its files'
  fingerprints, so that a file checked later against a model is known to fit it or not.

- `builtin.builtin_pairs("dates", split, size, seed)`: the built-in data set, generated
  (`dates`: dates in human formats -> ISO ``YYYY-MM-DD``), an example task as spelling is.

The textbook's data is `keras_nmt.data`: the tf.data pipeline these pairs go into.
"""
