"""Hypothesis scores for beam search: length normalization and the GNMT coverage penalty.

Wu et al. (2016), "Google's Neural Machine Translation System: Bridging the Gap between Human
and Machine Translation", section 7:

    s(Y, X) = log P(Y | X) / lp(Y) + cp(X; Y)
    lp(Y) = (5 + |Y|) ** alpha / (5 + 1) ** alpha
    cp(X; Y) = beta * sum_i log(min(sum_j p_ij, 1.0))

where ``p_ij`` is the attention of target token ``j`` on source token ``i``. ``|Y|`` counts the
emitted tokens, ``END`` included.
"""

import numbers

from keras import ops

NORMALIZATIONS = ("none", "average", "gnmt")

# Floor under the accumulated attention of a source token before the log of the coverage
# penalty: a token never attended to costs beta * log(1e-10) ~ -23 * beta instead of -inf.
COVERAGE_EPSILON = 1e-10


def _is_python_number(x) -> bool:
    # numbers.Real also covers numpy scalars.
    return isinstance(x, numbers.Real) and not isinstance(x, bool)


def check_beam(beam_size, n_best):
    """Validates a beam search's width and n-best size; returns ``n_best`` (``None``: all)."""
    if not isinstance(beam_size, int) or beam_size < 1:
        raise ValueError(f"beam_size must be a python int >= 1, got {beam_size!r}")
    n_best = beam_size if n_best is None else n_best
    if not isinstance(n_best, int) or not 1 <= n_best <= beam_size:
        raise ValueError(f"n_best must be a python int in [1, beam_size], got {n_best!r}")
    return n_best


def check_normalization(normalization: str, length_penalty):
    """Validates the normalization options.

    ``length_penalty`` may be a scalar tensor (e.g. a SavedModel input); it is then not checked
    here, and the caller must keep it >= 0.
    """
    if normalization not in NORMALIZATIONS:
        raise ValueError(f"normalization must be one of {NORMALIZATIONS}, got {normalization!r}")
    if not _is_python_number(length_penalty):
        if len(getattr(length_penalty, "shape", ())) != 0:
            raise ValueError(f"length_penalty must be a scalar, got {length_penalty!r}")
        return
    if normalization == "gnmt" and not length_penalty >= 0:
        # alpha < 0 would make lp decrease with length and break the early-stopping bound.
        raise ValueError(f"length_penalty (alpha) must be >= 0, got {length_penalty!r}")


def gnmt_length_penalty(lengths, alpha):
    """GNMT length penalty ``((5 + |Y|) / 6) ** alpha`` (Wu et al., 2016).

    Args:
        lengths: int or float tensor of any shape: hypothesis lengths, ``END`` included.
        alpha: python float >= 0 or a float scalar tensor; 0 gives 1 (no normalization).

    Returns:
        float32 tensor of ``lengths``' shape.
    """
    alpha = float(alpha) if _is_python_number(alpha) else ops.cast(alpha, "float32")
    return ops.power((5.0 + ops.cast(lengths, "float32")) / 6.0, alpha)


def length_normalizer(lengths, normalization: str, length_penalty=0.0):
    """The divisor of the raw log-probability for each hypothesis.

    Args:
        lengths: int tensor of any shape: hypothesis lengths, ``END`` included.
        normalization: ``"none"`` (1: raw sum of log-probabilities, Sutskever et al., 2014),
            ``"average"`` (``|Y|``: mean log-probability per token) or ``"gnmt"``
            (``gnmt_length_penalty(|Y|, length_penalty)``).
        length_penalty: ``alpha`` for ``"gnmt"``: python float or float scalar tensor.

    Returns:
        float32 tensor of ``lengths``' shape, >= 1 for every length >= 1.
    """
    check_normalization(normalization, length_penalty)
    lengths = ops.cast(lengths, "float32")
    if normalization == "none":
        return ops.ones_like(lengths)
    if normalization == "average":
        return ops.maximum(lengths, 1.0)
    return gnmt_length_penalty(lengths, length_penalty)


def normalize_log_probs(log_probs, lengths, normalization: str, length_penalty=0.0):
    """``log_probs / length_normalizer(lengths)`` (``-inf`` stays ``-inf``).

    Args:
        log_probs: float32 tensor, raw sums of log-probabilities.
        lengths: int tensor broadcastable to ``log_probs``.
        normalization: see ``length_normalizer``.
        length_penalty: ``alpha`` for ``"gnmt"``.

    Returns:
        float32 tensor of ``log_probs``' shape.
    """
    return log_probs / length_normalizer(lengths, normalization, length_penalty)


def coverage_penalty(coverage, source_mask, beta: float):
    """GNMT coverage penalty ``beta * sum_i log(min(sum_j p_ij, 1.0))`` over real source tokens.

    The value is <= 0 and can only grow (towards 0) as a hypothesis gets longer, so 0 bounds it
    from above for every extension.

    Args:
        coverage: float ``(..., src_len)``, attention accumulated over the target tokens.
        source_mask: bool broadcastable to ``coverage``; padding positions contribute 0.
        beta: python float >= 0.

    Returns:
        float32 ``(...)``.
    """
    coverage = ops.clip(ops.cast(coverage, "float32"), COVERAGE_EPSILON, 1.0)
    logs = ops.where(source_mask, ops.log(coverage), 0.0)
    return float(beta) * ops.sum(logs, axis=-1)
