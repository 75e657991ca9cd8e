"""Comparisons: train a matrix of configurations the same way, tabulate and plot the results.

`keras-nmt compare` is the command line; the presets (`preset_registry.py`) are the comparisons
of the lecture material, and other packages add theirs with `register_preset`.
"""
