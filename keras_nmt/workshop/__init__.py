"""The workshop: the programs and machinery around the textbook.

The command line (`cli`), the server (`serve`), benchmarks, comparisons, the hardware probes,
spelling correction as an example task, the Marian import (`pretrained`), a training run and
its folder (`run`: the driver `train`, its options and data, locking, exact backups, time
budget, precision, distribution), corpus files (`corpora`: formats, compression, checks,
profiles), the translators opened from files (`translators`: run folders, SavedModels,
CTranslate2, glossaries, word alignment), Markdown tables and attention plots. The textbook
(the rest of `keras_nmt`) never imports it; docs/architecture.md draws the layout.
"""
