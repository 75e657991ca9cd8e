"""Inference: the `Translator` (strings in, translations out), its SavedModel-backed twin, and
the run folder format they are opened from.

Training (callbacks, final scores), evaluation, spelling correction, export and the apps all
translate through this package; it imports only `text`, `models` and `decoding` (the layering
is in docs/architecture.md).

Example:
    >>> translator = open_translator("runs/lstm")        # or a SavedModel directory
    >>> translator.translate_batch(["3rd of March 2021"], beam_size=4)[0].text
"""
