"""Training throughput in target tokens per second."""


def tokens_per_second(tokens_per_epoch, epochs, seconds):
    """``tokens_per_epoch * epochs / seconds``: target tokens trained on per second.

    Args:
        tokens_per_epoch: non-padding target tokens in one epoch (`TrainResult`), or
            ``None`` when unknown (then the result is ``None``).
        epochs: epochs trained (all of them, a resumed run included).
        seconds: time spent in the training steps of those epochs (the history's
            ``step_seconds``, timed by `RunState`: validation excluded).

    Returns:
        A float, or ``None`` when it cannot be computed (unknown tokens, no time).

    Example:
        >>> tokens_per_second(12_000, 3, 9.0)
        4000.0
    """
    if tokens_per_epoch is None or epochs is None or not seconds or seconds <= 0:
        return None
    return float(tokens_per_epoch) * float(epochs) / float(seconds)
