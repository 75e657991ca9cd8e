"""Batching a list of sentences by length, and putting the results back in input order.

A batch decodes until its longest sentence stops and pads every source to its longest one, so
batches of similar lengths waste fewer steps and positions than batches in file order.

Batches decoded at once, one per core, finish together only if they cost alike: cut into halves
of equal counts, a sorted batch gives the half of longer sentences more work, and one core waits
for the other. `call_sizes` cuts such a batch into calls of about equal cost instead (the
measurements: docs/decisions.md, "Calls of equal cost").
"""

import itertools

# What a row of a call costs beside its padded source, in source positions (characters for
# `translate_batch`, tokens for a CTranslate2 export): its target's decoding steps.
ROW_CHARACTERS = 10


def length_order(texts):
    """The indices of ``texts`` (strings or bytes) shortest first (stable: ties keep their input
    order). Characters stand in for tokens: no tokenizer call, and subword counts follow them
    closely.

    Example:
        >>> length_order(["a b c", "a", "a b"])
        [1, 2, 0]
    """
    return sorted(range(len(texts)), key=lambda index: len(texts[index]))


def restore_order(items, order):
    """Undoes ``length_order``: ``items[j]`` belongs to input ``order[j]``; returns the item of
    input ``i`` at position ``i``.

    Example:
        >>> restore_order(["x1", "x2", "x0"], [1, 2, 0])
        ['x0', 'x1', 'x2']
    """
    restored = [None] * len(order)
    for item, index in zip(items, order, strict=True):
        restored[index] = item
    return restored


def cut(items, sizes):
    """`items` cut into consecutive lists of `sizes` (`call_sizes`).

    Example:
        >>> cut(["a", "b", "c", "d", "e"], [2, 3])
        [['a', 'b'], ['c', 'd', 'e']]
    """
    ends = list(itertools.accumulate(sizes))
    return [list(items[end - size : end]) for end, size in zip(ends, sizes, strict=True)]


def call_sizes(lengths, batch_size, calls=None, row_cost=ROW_CHARACTERS):
    """Sizes of the consecutive calls sorted `lengths` are cut into: `batch_size` sentences
    each, or, given `calls`, at most that many calls (more only where `batch_size` needs them)
    of at most `batch_size` sentences each, whose costliest call costs least, a call of `n`
    rows whose longest is `m` costing `n * (m + row_cost)` (balanced, the calls of short
    sentences take more rows: see the module).

    Args:
        lengths: source lengths, sorted ascending (`length_order`).
        batch_size: the most sentences per call.
        calls: the calls wanted, or `None` for calls of `batch_size`.
        row_cost: what a row costs beside its padded source, in the units of `lengths`.

    Returns:
        A list of call sizes summing to `len(lengths)`, none empty.

    Example:
        >>> call_sizes([10] * 10, 4)
        [4, 4, 2]
        >>> call_sizes([10] * 8, 64, calls=2)
        [4, 4]
        >>> call_sizes([5, 5, 5, 5, 5, 5, 30, 30], 64, calls=2, row_cost=0)  # 6 * 5 < 2 * 30
        [6, 2]
    """
    if batch_size < 1 or (calls is not None and calls < 1):
        raise ValueError(f"batch_size and calls must be >= 1, got {batch_size} and {calls}")
    if calls is None:
        return [min(batch_size, len(lengths) - start)
                for start in range(0, len(lengths), batch_size)]
    calls = max(calls, -(-len(lengths) // batch_size))

    def greedy(most):
        """Left to right, each call as long as it costs at most `most` (a row that costs more
        alone is a call of its own); `None` if that takes more than `calls` calls."""
        sizes, start = [], 0
        while start < len(lengths):
            end = start + 1
            while (end < len(lengths) and end - start < batch_size
                   and (end + 1 - start) * (lengths[end] + row_cost) <= most):
                end += 1
            sizes.append(end - start)
            if len(sizes) > calls:
                return None
            start = end
        return sizes

    # The least most-cost for which greedy packing needs at most `calls` calls. Greedy packing
    # needs the fewest calls for a given most-cost: a call only costs more as it grows to the
    # right, and a call that starts later leaves the calls after it no more to do.
    low, high = 0, len(lengths) * ((lengths[-1] if lengths else 0) + row_cost)
    while low < high:
        middle = (low + high) // 2
        if greedy(middle) is None:
            low = middle + 1
        else:
            high = middle
    return greedy(low)
