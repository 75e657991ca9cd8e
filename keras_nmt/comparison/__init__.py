"""Comparisons: train a matrix of configurations the same way, tabulate and plot the results.

`apps/compare.py` is the command line; the presets (`preset_registry.py`) are the comparisons of the
lecture material, and other packages add theirs with `register_preset`.
"""

from keras_nmt.comparison.configuration import Configuration
from keras_nmt.comparison.preset import Preset
from keras_nmt.comparison.preset_registry import (
    LAZY_PRESETS,
    get_preset,
    preset_names,
    register_preset,
)
from keras_nmt.comparison.table import COLUMNS, markdown_table, write_results
from keras_nmt.comparison.throughput import count_target_tokens, tokens_per_second

__all__ = [
    "COLUMNS",
    "Configuration",
    "LAZY_PRESETS",
    "Preset",
    "count_target_tokens",
    "get_preset",
    "markdown_table",
    "preset_names",
    "register_preset",
    "tokens_per_second",
    "write_results",
]
