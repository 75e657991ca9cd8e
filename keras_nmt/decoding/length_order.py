"""Batching a list of sentences by length, and putting the results back in input order.

A batch decodes until its longest sentence stops and pads every source to its longest one, so
batches of similar lengths waste fewer steps and positions than batches in file order.
"""


def length_order(texts):
    """The indices of ``texts`` shortest first (stable: ties keep their input order).

    Characters stand in for tokens: no tokenizer call, and subword counts follow them closely.

    Args:
        texts: a sequence of strings (or bytes).

    Returns:
        A list of ``len(texts)`` indices; ``[texts[i] for i in order]`` is sorted by length.

    Example:
        >>> length_order(["a b c", "a", "a b"])
        [1, 2, 0]
    """
    return sorted(range(len(texts)), key=lambda index: len(texts[index]))


def restore_order(items, order):
    """Undoes ``length_order``: ``items[j]`` belongs to input ``order[j]``.

    Args:
        items: one result per index of ``order``, in ``order``'s order.
        order: the list returned by ``length_order``.

    Returns:
        A list with the item of input ``i`` at position ``i``.

    Example:
        >>> restore_order(["x1", "x2", "x0"], [1, 2, 0])
        ['x0', 'x1', 'x2']
    """
    if len(items) != len(order):
        raise ValueError(f"{len(items)} items for {len(order)} indices")
    restored = [None] * len(order)
    for item, index in zip(items, order, strict=True):
        restored[index] = item
    return restored
