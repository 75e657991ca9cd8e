"""How long each sentence may decode: ``min(max_length, ceil(a * source_len + b))`` tokens.

Example:
    >>> sentence_max_lengths(memory["source_mask"], 200, 1.5, 10.0)  # int32 (batch,)
"""

import math

import keras
from keras import ops

from keras_nmt.decoding.decoding_model import DecodingModel
from keras_nmt.decoding.decoding_options import DEFAULT_MAX_LENGTH


def within_model_limit(model: DecodingModel, length, default, name="max_length"):
    """A length limit that a model with its own ``max_length`` can honour.

    A model with a python int ``max_length`` (a Transformer's table of positions) cannot encode
    or decode past it: ``length=None`` becomes ``min(default, model.max_length)`` and a larger
    explicit ``length`` raises (naming the option ``name``); a given one is returned as it is.
    """
    model_limit = getattr(model, "max_length", None)
    if length is None:
        return min(default, model_limit or default)
    if model_limit is not None and length > model_limit:
        raise ValueError(f"{name}={length} exceeds the model's max_length {model_limit}")
    return length


def resolve_length_options(model: DecodingModel, max_length, max_length_a, max_length_b):
    """Validates the length options (python values, at trace time) and returns the global cap,
    a python int: ``max_length``, or for ``None`` ``DEFAULT_MAX_LENGTH`` within the model's own
    limit (``within_model_limit``)."""
    if max_length is not None and (
        not isinstance(max_length, int) or isinstance(max_length, bool) or max_length < 1
    ):
        raise ValueError(f"max_length must be a positive python int, got {max_length!r}")
    max_length = within_model_limit(model, max_length, DEFAULT_MAX_LENGTH)
    if not math.isfinite(max_length_a) or max_length_a < 0:
        raise ValueError(f"max_length_a must be a finite number >= 0, got {max_length_a!r}")
    if not math.isfinite(max_length_b):
        raise ValueError(f"max_length_b must be finite, got {max_length_b!r}")
    return max_length


def sentence_max_lengths(source_mask, max_length, max_length_a, max_length_b):
    """Per-sentence limit on the number of emitted tokens (``END`` included).

    ``min(max_length, ceil(a * source_len + b))``, and at least 1.

    Args:
        source_mask: bool ``(batch, src_len)``.
        max_length: python int, the global cap (also the size of the output buffers).
        max_length_a: python float ``a``.
        max_length_b: python float ``b``.

    Returns:
        int32 ``(batch,)``.
    """
    length = ops.sum(ops.cast(source_mask, "float32"), axis=1)  # real source tokens
    limit = ops.ceil(length * float(max_length_a) + float(max_length_b))
    limit = ops.clip(limit, 1.0, float(max_length))
    return ops.cast(limit, "int32")


def cache_length(limits, max_length, batch_cache):
    """How many positions the model's decoding caches hold: ``max_length``, or the batch's own.

    A Transformer's step rewrites (and beam search reorders) its self-attention caches at every
    step and attends over all their positions, so caches sized to the longest per-sentence
    limit of the batch (``max(limits)`` <= ``max_length``) cost proportionally less than caches
    of the global ``max_length``. No sentence decodes past its limit, so the outputs are the same.

    Args:
        limits: int32 ``(batch,)``, from ``sentence_max_lengths``.
        max_length: python int, the global cap.
        batch_cache: python bool; ``False`` keeps the static ``max_length`` (a fixed cache
            shape). Under the JAX backend the cache is always static: XLA under ``jax.jit``
            needs concrete shapes (decoding there compiles per shape bucket instead).

    Returns:
        ``max_length``, or an int32 scalar tensor (at least 1, also for an empty batch).
    """
    if not batch_cache or keras.backend.backend() == "jax":
        return max_length
    return ops.max(limits, initial=1)
