import random

import pytest

from keras_nmt.decoding.length_order import call_sizes, cut, length_order, restore_order


def test_length_order_is_a_stable_sort_by_length_and_restore_order_undoes_it():
    texts = ["a b c", "a", "bb", "c", ""]
    order = length_order(texts)
    assert order == [4, 1, 3, 2, 0]
    assert restore_order([texts[i].upper() for i in order], order) == [t.upper() for t in texts]
    assert length_order([]) == [] and restore_order([], []) == []


def _cost(lengths, sizes, row_cost):
    """The costliest call's cost: rows times (longest + row_cost)."""
    costs, start = [], 0
    for size in sizes:
        costs.append(size * (lengths[start + size - 1] + row_cost))
        start += size
    return max(costs, default=0)


def _compositions(total, parts, most):
    """Every way to write `total` as at most `parts` positive sizes of at most `most`."""
    if total == 0:
        yield []
        return
    if parts == 0:
        return
    for first in range(1, min(total, most) + 1):
        for rest in _compositions(total - first, parts - 1, most):
            yield [first, *rest]


@pytest.mark.parametrize("seed", range(40))
def test_balanced_calls_are_as_cheap_as_an_exhaustive_search_finds(seed):
    rng = random.Random(seed)
    lengths = sorted(rng.randint(1, 30) for _ in range(rng.randint(1, 11)))
    calls, batch_size = rng.randint(1, 4), rng.randint(2, 12)
    row_cost = rng.choice([0, 3, 10])
    sizes = call_sizes(lengths, batch_size, calls, row_cost=row_cost)
    assert sum(sizes) == len(lengths) and min(sizes) >= 1 and max(sizes) <= batch_size
    needed = max(calls, -(-len(lengths) // batch_size))  # more calls only where batch_size needs
    assert len(sizes) <= needed
    best = min(_cost(lengths, c, row_cost)
               for c in _compositions(len(lengths), needed, batch_size))
    assert _cost(lengths, sizes, row_cost) == best


def test_a_batch_of_two_lengths_gives_the_short_call_more_rows():
    # 96 sentences of 10 characters and 32 of 30, in 2 calls: with equal counts the long call
    # costs 64 * (30 + 10) = 2560 and the short one 1280; balanced, 86 short rows cost
    # 86 * 20 = 1720 and the other 42 rows 42 * 40 = 1680.
    lengths = [10] * 96 + [30] * 32
    assert call_sizes(lengths, 128, calls=2) == [86, 42]
    # Without `calls`: calls of batch_size, the last one shorter, as `translate_batch` always cut.
    assert call_sizes(lengths, 50) == [50, 50, 28]
    assert call_sizes([], 64, calls=2) == [] and call_sizes([], 64) == []


def test_cut_gives_consecutive_lists_of_the_sizes():
    assert cut(list(range(6)), [1, 3, 2]) == [[0], [1, 2, 3], [4, 5]]
    assert cut([], []) == []
