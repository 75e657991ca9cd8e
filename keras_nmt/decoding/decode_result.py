"""The value every decoding strategy returns, and its buffers written one step at a time."""

from typing import Any, NamedTuple

from keras import ops


class DecodeResult(NamedTuple):
    """Decoded hypotheses, their scores and (optionally) their attention.

    A ``NamedTuple`` so it passes through ``tf.function``, ``tf.nest`` and ``keras.tree`` as a
    plain nested structure (``attention`` may be ``None``).

    Greedy decoding and sampling give one hypothesis per sentence; beam search gives ``n_best``
    per sentence, best first, with one more axis. ``L`` is the output length: the longest
    hypothesis in the batch when the strategy was called with ``trim=True`` (the default),
    otherwise ``max_length``.

    Attributes:
        tokens: int32 ``(batch, L)`` or ``(batch, n_best, L)``. Each hypothesis ends with
            ``END_ID`` when it finished, and is followed by ``PAD_ID`` (0). A hypothesis stopped
            by its maximum length has no ``END_ID``.
        lengths: int32 ``(batch,)`` or ``(batch, n_best)``: the number of emitted tokens,
            ``END_ID`` included.
        scores: float32 ``(batch,)`` or ``(batch, n_best)``: the score the strategy ranks by.
            For greedy decoding and sampling it is ``log_probs``; for beam search the
            length-normalized log-probability plus the coverage penalty.
        log_probs: float32, same shape as ``scores``: the sum of the model's log-probabilities
            (``log_softmax`` in float32, temperature 1, unfiltered) of the emitted tokens,
            ``END_ID`` included.
        attention: float32 ``(batch, L, src_len)`` or ``(batch, n_best, L, src_len)``, zero after
            each hypothesis' end, or ``None`` when not requested or the model has no attention.
    """

    tokens: Any
    lengths: Any
    scores: Any
    log_probs: Any
    attention: Any = None

    @property
    def is_n_best(self) -> bool:
        """Whether the result holds an n-best list per sentence (beam search)."""
        return len(self.tokens.shape) == 3

    def best(self) -> "DecodeResult":
        """The best hypothesis per sentence, with the single-hypothesis shapes.

        Returns:
            ``self`` for greedy decoding and sampling; for beam search a ``DecodeResult`` holding
            ``n_best`` index 0: tokens ``(batch, L)``, lengths/scores/log_probs ``(batch,)``,
            attention ``(batch, L, src_len)`` or ``None``.
        """
        if not self.is_n_best:
            return self

        def first(x):
            return None if x is None else ops.take(x, 0, axis=1)

        return DecodeResult(*(first(x) for x in self))

    def trimmed(self) -> "DecodeResult":
        """The time axis of ``tokens`` and ``attention`` cut to the longest hypothesis."""
        time = (slice(None),) * len(self.lengths.shape)  # (batch,) or (batch, n_best)
        longest = ops.max(self.lengths, initial=1)

        def cut(x):
            return None if x is None else x[(*time, slice(None, longest))]

        return self._replace(tokens=cut(self.tokens), attention=cut(self.attention))


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
