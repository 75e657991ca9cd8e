"""Fixed-shape output buffers of the decoding loop, written one step at a time
(`DecodeResult.trimmed` cuts them at the end).

Example:
    >>> write_at(ops.zeros((2, 5), "int32"), ops.array([7, 8]), t=1, axis=1)  # [[0, 7, 0, ...
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

