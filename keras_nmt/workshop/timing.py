"""How keras_nmt times a thing: one clock, a warm-up timed apart, repeats, their median.

Every speed figure of the project (the benchmarks, `keras-nmt evaluate`, the machine's matmul
peak) comes from `time_call` (one function, an optional warm-up, repeats) or `time_in_turn`
(several functions timed alternately, so that a load that comes and goes on a shared machine
hits all of them alike). A timed function must block until its work is done (read a result
back to the host: `.numpy()`, `np.asarray`, Python strings), or the clock stops early.

Example:
    >>> timing = time_call(lambda: sum(range(10**6)), repeats=5, warmup=lambda: None)
    >>> len(timing.seconds), timing.result
    (5, 499999500000)
    >>> timing.best <= timing.median <= max(timing.seconds)
    True
"""

import statistics
from dataclasses import dataclass, replace
from time import perf_counter


@dataclass(frozen=True)
class Timing:
    """The seconds of each timed call, of the warm-up, and what the last timed call returned.

    Attributes:
        seconds: one float per timed call, in call order.
        warmup_seconds: the warm-up call's seconds, or `None` when there was none.
        result: the last timed call's return value.
    """

    seconds: tuple
    warmup_seconds: float | None = None
    result: object = None

    @property
    def median(self):
        """The median timed call: one disturbed call cannot move it."""
        return statistics.median(self.seconds)

    @property
    def best(self):
        """The fastest timed call."""
        return min(self.seconds)

    @property
    def total(self):
        """All timed calls together."""
        return sum(self.seconds)


def _clocked(function):
    start = perf_counter()
    result = function()
    return perf_counter() - start, result


def time_in_turn(functions, repeats=1, rotate=False):
    """Times each of `functions` (no arguments) once per round, `repeats` rounds.

    Args:
        functions: a list of callables.
        repeats: rounds.
        rotate: start round `i` `i` places further back in the list (round 1 of four functions
            runs them in the order 3, 0, 1, 2), so that no function always follows the same one.

    Returns:
        A list of `Timing`s, one per function (no warm-up: the caller's, untimed, before).

    Example:
        >>> [len(t.seconds) for t in time_in_turn([lambda: 1, lambda: 2], repeats=3)]
        [3, 3]
    """
    seconds = [[] for _ in functions]
    results = [None] * len(functions)
    for round_index in range(repeats):
        shift = round_index if rotate else 0
        for index in ((k - shift) % len(functions) for k in range(len(functions))):
            duration, results[index] = _clocked(functions[index])
            seconds[index].append(duration)
    return [Timing(tuple(s), result=r) for s, r in zip(seconds, results, strict=True)]


def time_call(function, repeats=1, warmup=None):
    """Times `repeats` calls of `function()` after one call of `warmup()`, timed apart.

    Args:
        function: the callable timed (no arguments).
        repeats: timed calls.
        warmup: a callable run first (tracing, compilation, first allocations), often
            `function` itself or the same work on less data; `None`: no warm-up.

    Returns:
        A `Timing`: `seconds` (each timed call), `warmup_seconds`, `result` (the last call's).

    Example:
        >>> timing = time_call(lambda: "done")
        >>> timing.result, timing.warmup_seconds, len(timing.seconds)
        ('done', None, 1)
    """
    warmup_seconds = None if warmup is None else _clocked(warmup)[0]
    [timing] = time_in_turn([function], repeats)
    return replace(timing, warmup_seconds=warmup_seconds)
