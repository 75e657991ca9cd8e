"""Translators opened from files (a run folder, a SavedModel, a CTranslate2 export), the
exports that write them and their formats (`formats`, no TensorFlow), glossaries, word
alignment, the check of a data file's columns, and TensorFlow's thread pools set for
translation throughput (`decoding_threads`).
"""
