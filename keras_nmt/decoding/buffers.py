"""Fixed-shape output buffers of the decoding loops: written one step at a time, cut at the end.

Example:
    >>> tokens = write_at(ops.zeros((2, 5), "int32"), ops.array([7, 8]), t=1, axis=1)
    >>> tuple(trim_to_longest(ops.array([2, 1]), tokens, None, axis=1)[0].shape)
    (2, 2)
"""

from keras import ops


def write_at(buffer, values, t, axis):
    """Writes ``values`` into ``buffer`` at position ``t`` along ``axis`` (shape-preserving).

    A select rather than a scatter, so every backend keeps the buffer's static shape inside a
    ``while_loop``.

    Args:
        buffer: tensor ``(..., L, ...)`` with ``L`` static at ``axis``.
        values: tensor of ``buffer``'s shape without ``axis`` (or broadcastable to it), or a
            python scalar.
        t: int32 scalar tensor, the position.
        axis: python int, non-negative.

    Returns:
        ``buffer`` with ``values`` at position ``t``.
    """
    length = buffer.shape[axis]
    hit = ops.equal(ops.arange(length, dtype="int32"), t)
    shape = [1] * len(buffer.shape)
    shape[axis] = length
    hit = ops.reshape(hit, shape)
    if not isinstance(values, int | float):
        values = ops.expand_dims(values, axis)
    return ops.where(hit, values, buffer)


def trim_to_longest(lengths, *buffers, axis):
    """Cuts the time axis of each buffer to the longest hypothesis (``None`` passes through).

    Args:
        lengths: int32 tensor of hypothesis lengths (any shape).
        *buffers: tensors whose ``axis`` is the time axis, or ``None``.
        axis: python int >= 0, the time axis (the same for every buffer).

    Returns:
        A tuple of the cut buffers.
    """
    longest = ops.max(lengths, initial=1)
    out = []
    for buffer in buffers:
        if buffer is None:
            out.append(None)
            continue
        index = [slice(None)] * len(buffer.shape)
        index[axis] = slice(None, longest)
        out.append(buffer[tuple(index)])
    return tuple(out)

