"""Comparisons: train a matrix of configurations the same way, tabulate and plot the results.

`keras-nmt compare` is the command line; the presets (`preset_registry.py`) are the comparisons
of the lecture material, and other packages add theirs with `register_preset`.
"""

from keras_nmt._lazy import lazy_package

__all__ = lazy_package(
    __name__,
    {
        "COLUMNS": "keras_nmt.comparison.table",
        "Configuration": "keras_nmt.comparison.configuration",
        "LAZY_PRESETS": "keras_nmt.comparison.preset_registry",
        "Preset": "keras_nmt.comparison.preset",
        "get_preset": "keras_nmt.comparison.preset_registry",
        "markdown_table": "keras_nmt.comparison.table",
        "preset_names": "keras_nmt.comparison.preset_registry",
        "register_preset": "keras_nmt.comparison.preset_registry",
        "tokens_per_second": "keras_nmt.comparison.throughput",
        "write_results": "keras_nmt.comparison.table",
    },
)
