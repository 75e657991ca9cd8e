"""Timing helpers: a median of repeated wall-clock measurements."""

import statistics
import time


def median(values):
    """The median of a non-empty sequence of numbers."""
    return statistics.median(list(values))


def time_repeats(function, repeats=5, warmup=1):
    """Seconds per call of `function()` for each of `repeats` timed calls, after `warmup` calls.

    `function` must block until its work is done (e.g. call `.numpy()` on a result).

    Returns:
        A list of `repeats` durations in seconds.
    """
    for _ in range(warmup):
        function()
    durations = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        durations.append(time.perf_counter() - start)
    return durations
