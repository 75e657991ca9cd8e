"""Greedy decoding's step function: the most probable token at every step."""

from keras import ops


def greedy_step(logits, log_probs, t, sentences):
    """The arg-max token of each row.

    Args:
        logits: float32 ``(batch, vocab)``, the model's next-token logits.
        log_probs: float32 ``(batch, vocab)``, their ``log_softmax`` (the same arg-max).
        t: int32 scalar, the step.
        sentences: int32 ``(batch,)``, each row's sentence index in the caller's input.

    Returns:
        int32 ``(batch,)``.

    Example:
        >>> greedy_step(ops.array([[0.1, 2.0, 0.3]]), None, 0, None)  # [1]
    """
    del log_probs, t, sentences  # the choice needs the logits alone
    return ops.cast(ops.argmax(logits, axis=-1), "int32")
