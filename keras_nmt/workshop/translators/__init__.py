"""Translators opened from files (a run folder, a SavedModel, a CTranslate2 export), the
exports that write them, glossaries, word alignment and the check of a data file's columns.
"""
