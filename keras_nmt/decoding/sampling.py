"""Ancestral sampling with temperature, top-k (Fan et al., 2018) and nucleus (Holtzman et al., 2019)
filtering."""

import math

import keras
from keras import ops

from keras_nmt.decoding._stepwise import run_stepwise
from keras_nmt.decoding.decode_result import DecodeResult
from keras_nmt.decoding.decoding_model import DecodingModel
from keras_nmt.decoding.decoding_options import (
    DEFAULT_MAX_LENGTH_A,
    DEFAULT_MAX_LENGTH_B,
    SMALLEST_TEMPERATURE,
)
from keras_nmt.decoding.length_limits import resolve_length_options


def filter_top_k(logits, k: int):
    """Keeps the ``k`` largest logits per row, the others become ``-inf``.

    Fan, Lewis & Dauphin (2018), "Hierarchical Neural Story Generation". Ties with the ``k``-th
    largest value are kept. A ``k`` above the vocabulary keeps every token (the k most probable
    of fewer tokens are all of them; `tf.math.top_k` would fail).

    Args:
        logits: float ``(batch, vocab)``.
        k: python int >= 1.

    Returns:
        float ``(batch, vocab)``.
    """
    vocab = logits.shape[-1]
    if vocab is not None and k >= vocab:
        return logits
    kth = ops.min(ops.top_k(logits, k)[0], axis=-1, keepdims=True)  # (batch, 1)
    return ops.where(ops.less(logits, kth), float("-inf"), logits)


def filter_top_p(logits, p: float):
    """Nucleus filtering: keeps the smallest set of most probable tokens whose mass reaches ``p``.

    Holtzman et al. (2019), "The Curious Case of Neural Text Degeneration". A token is kept when
    the probability mass of the tokens strictly more probable than it is below ``p``, so the most
    probable token is always kept.

    Args:
        logits: float ``(batch, vocab)`` (may hold ``-inf``).
        p: python float in ``(0, 1]``.

    Returns:
        float ``(batch, vocab)``, ``-inf`` outside the nucleus.
    """
    descending = ops.flip(ops.sort(logits, axis=-1), axis=-1)  # (batch, vocab)
    probs = ops.softmax(descending, axis=-1)
    mass_before = ops.cumsum(probs, axis=-1) - probs
    kept = ops.where(ops.less(mass_before, p), descending, float("inf"))
    threshold = ops.min(kept, axis=-1, keepdims=True)  # smallest kept logit, (batch, 1)
    return ops.where(ops.less(logits, threshold), float("-inf"), logits)


def sample_decode(
    model: DecodingModel,
    encoder_tokens,
    temperature: float = 1.0,
    top_k: int | None = None,
    top_p: float | None = None,
    seed=None,
    max_length: int | None = None,
    max_length_a: float = DEFAULT_MAX_LENGTH_A,
    max_length_b: float = DEFAULT_MAX_LENGTH_B,
    return_attention: bool = False,
    trim: bool = True,
    batch_cache: bool = True,
) -> DecodeResult:
    """Samples one hypothesis per sentence, the whole batch in one graph loop.

    At each step the logits are divided by ``temperature``, filtered by top-k then top-p, and a
    token is drawn from their softmax by inverse-CDF sampling with one uniform number per
    sentence and step. All uniforms ``(batch, max_length)`` are drawn once, before the loop, with
    ``keras.random.uniform(seed=seed)``; the loop itself is stateless, so it traces the same
    under TensorFlow and JAX. Stopping, lengths, outputs and the length limit are as in
    ``greedy_decode``. The scores are the model's own log-probabilities (temperature 1, no
    filtering) of the sampled tokens, so they compare with greedy and beam scores.

    ``temperature == 0`` means arg-max (greedy), as does one below float32's smallest normal
    number (``SMALLEST_TEMPERATURE``); a temperature near 0 (e.g. 1e-6), or ``top_k=1``, also
    gives the greedy output unless the best logits tie.

    Args:
        model: keeps the inference contract (see CONTRIBUTING.md).
        encoder_tokens: int ``(batch, src_len)`` padded with ``PAD_ID``.
        temperature: python float >= 0; below 1 sharpens, above 1 flattens the distribution.
        top_k: python int >= 1 or ``None`` (no top-k filtering).
        top_p: python float in ``(0, 1]`` or ``None`` (no nucleus filtering).
        seed: python int (the same samples on every call: reproducible), a
            ``keras.random.SeedGenerator`` created outside any traced function (new samples on
            every call), or ``None`` (Keras' global generator; not usable while JAX traces).
        max_length: python int, the most tokens per hypothesis (``END`` included). ``None``: as
            for ``greedy_decode``.
        max_length_a: python float ``a`` of the limit ``ceil(a * source_len + b)``.
        max_length_b: python float ``b``.
        return_attention: also return attention ``(batch, L, src_len)`` for attention models.
        trim: cut the time axis to the longest hypothesis.
        batch_cache: size the model's decoding caches to the batch's longest per-sentence
            limit (the default; the same outputs, fewer positions per step) instead of
            ``max_length``; ``False`` keeps a static cache shape.

    Returns:
        A single-hypothesis ``DecodeResult`` (see ``greedy_decode``).
    """
    if not math.isfinite(temperature) or temperature < 0:
        raise ValueError(f"temperature must be a finite number >= 0, got {temperature!r}")
    if top_k is not None and (not isinstance(top_k, int) or top_k < 1):
        raise ValueError(f"top_k must be a python int >= 1 or None, got {top_k!r}")
    if top_p is not None and not 0.0 < top_p <= 1.0:
        raise ValueError(f"top_p must be in (0, 1] or None, got {top_p!r}")
    max_length = resolve_length_options(model, max_length, max_length_a, max_length_b)
    encoder_tokens = ops.convert_to_tensor(encoder_tokens, dtype="int32")

    if temperature < SMALLEST_TEMPERATURE:
        uniforms = None
    else:
        batch = ops.shape(encoder_tokens)[0]
        uniforms = keras.random.uniform((batch, max_length), dtype="float32", seed=seed)

    def choose(logits, log_probs, t):
        del log_probs
        if uniforms is None:
            return ops.cast(ops.argmax(logits, axis=-1), "int32")
        # The best logit shifted to 0 (the softmax is the same): at a tiny temperature the
        # others divided by it overflow to -inf (no mass), where unshifted ones were inf / inf.
        scaled = (logits - ops.max(logits, axis=-1, keepdims=True)) / float(temperature)
        if top_k is not None:
            scaled = filter_top_k(scaled, top_k)
        if top_p is not None and top_p < 1.0:
            scaled = filter_top_p(scaled, top_p)
        cumulative = ops.cumsum(ops.softmax(scaled, axis=-1), axis=-1)  # (batch, vocab)
        # Inverse CDF: the first token whose cumulative mass exceeds u * total. Scaling by the
        # row's own total (instead of 1) keeps rounding from running past the last kept token,
        # and a token of zero probability never starts a new step of the CDF, so it is never
        # drawn.
        u = ops.take(uniforms, t, axis=1)[:, None] * cumulative[:, -1:]
        index = ops.sum(ops.cast(ops.less_equal(cumulative, u), "int32"), axis=-1)
        return ops.minimum(index, ops.shape(logits)[-1] - 1)

    return run_stepwise(
        model,
        encoder_tokens,
        choose,
        max_length=max_length,
        max_length_a=max_length_a,
        max_length_b=max_length_b,
        return_attention=return_attention,
        trim=trim,
        batch_cache=batch_cache,
    )
