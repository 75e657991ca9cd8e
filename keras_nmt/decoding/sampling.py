"""Ancestral sampling with temperature, top-k (Fan et al., 2018) and nucleus (Holtzman et al., 2019)
filtering, with random numbers that belong to the sentence.

A sentence's sample depends only on the seed, the sentence's index in the caller's input and
the step: each uniform number is a hash of those three (`uniforms`, a counter-based generator
as in Salmon et al., 2011, "Parallel random numbers: as easy as 1, 2, 3"), never a draw from a
stream shared by the batch. So the same input gives the same samples whatever the batching,
the parallel workers or the server's batch composition, and eight copies of one sentence at
eight indices are eight draws.
"""

import math

import keras
import numpy as np
from keras import ops

from keras_nmt.decoding.decoding_options import SMALLEST_TEMPERATURE


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


# Chris Wellons' "lowbias32" integer hash: two multiply-xorshift rounds, a bijection of uint32 whose
# output bits each flip with probability about 1/2 when one input bit flips.
_MULTIPLIERS = (0x7FEB352D, 0x846CA68B)
_SHIFTS = (16, 15, 16)
_SEED_SALT = 0x9E3779B9  # so that seed 0 does not start from the hash of 0


def _uint32(value):
    return ops.cast(ops.convert_to_tensor(value), "uint32") if not isinstance(value, int) \
        else ops.convert_to_tensor(np.uint32(value % 2**32), "uint32")


def _hash(x):
    """``lowbias32(x)``, uint32 to uint32 elementwise (``keras.ops`` only)."""
    for shift, multiplier in zip(_SHIFTS, (*_MULTIPLIERS, None), strict=True):
        x = ops.bitwise_xor(x, ops.right_shift(x, _uint32(shift)))
        if multiplier is not None:
            x = ops.multiply(x, _uint32(multiplier))
    return x


def uniforms(seed, sentences, step):
    """One uniform number in ``[0, 1)`` per sentence, a function of ``(seed, sentence, step)``.

    ``hash(hash(hash(seed ^ salt) ^ sentence) ^ step)``, its top 24 bits scaled to ``[0, 1)``
    (24: every such number is a float32 exactly).

    Args:
        seed: python int or int scalar tensor.
        sentences: int ``(batch,)``, each row's sentence index in the caller's input.
        step: int scalar (the decoding step) or int ``(batch,)``.

    Returns:
        float32 ``(batch,)``.

    Example:
        >>> uniforms(0, ops.array([0, 1, 0]), 3)  # rows 0 and 2 draw the same number
    """
    key = _hash(ops.bitwise_xor(_uint32(seed), _uint32(_SEED_SALT)))
    key = _hash(ops.bitwise_xor(key, _uint32(sentences)))
    key = _hash(ops.bitwise_xor(key, _uint32(step)))
    top = ops.cast(ops.right_shift(key, _uint32(8)), "float32")
    return top * (1.0 / (1 << 24))


def draw(logits, u, temperature, top_k=None, top_p=None):
    """One token per row, drawn from ``softmax(logits / temperature)`` filtered by top-k, then
    top-p, by inverse-CDF sampling with the uniform number ``u`` of the row.

    Args:
        logits: float32 ``(batch, vocab)``.
        u: float32 ``(batch,)`` in ``[0, 1)`` (``uniforms``).
        temperature: python float >= ``SMALLEST_TEMPERATURE``.
        top_k: python int >= 1 or ``None``.
        top_p: python float in ``(0, 1]`` or ``None``.

    Returns:
        int32 ``(batch,)``: the first token whose cumulative probability exceeds ``u``.
    """
    # The best logit shifted to 0 (the softmax is the same): at a tiny temperature the others
    # divided by it overflow to -inf (no mass), where unshifted ones would be inf / inf.
    scaled = (logits - ops.max(logits, axis=-1, keepdims=True)) / float(temperature)
    if top_k is not None:
        scaled = filter_top_k(scaled, top_k)
    if top_p is not None and top_p < 1.0:
        scaled = filter_top_p(scaled, top_p)
    cumulative = ops.cumsum(ops.softmax(scaled, axis=-1), axis=-1)  # (batch, vocab)
    # Inverse CDF: the first token whose cumulative mass exceeds u * total. Scaling by the row's
    # own total (instead of 1) keeps rounding from running past the last kept token, and a
    # token of zero probability never starts a new step of the CDF, so it is never drawn.
    u = ops.convert_to_tensor(u, "float32")[:, None] * cumulative[:, -1:]
    index = ops.sum(ops.cast(ops.less_equal(cumulative, u), "int32"), axis=-1)
    return ops.minimum(index, ops.shape(logits)[-1] - 1)


def sampling_options(temperature=1.0, top_k=None, top_p=None, seed=None):
    """Checks the options of `sample_step` and fixes the seed of one decoding call.

    Args:
        temperature: python float >= 0; below 1 sharpens, above 1 flattens the distribution;
            below ``SMALLEST_TEMPERATURE`` (0 included) it is the arg-max.
        top_k: python int >= 1 or ``None`` (no top-k filtering).
        top_p: python float in ``(0, 1]`` or ``None`` (no nucleus filtering).
        seed: python int or int scalar tensor (the same samples on every call: reproducible),
            a ``keras.random.SeedGenerator`` created outside any traced function (a seed drawn
            from it: new samples on every call), or ``None`` (a seed drawn from Keras' global
            generator; not usable while JAX traces).

    Returns:
        The keyword arguments of `sample_step`, the seed an int or an int32 tensor.
    """
    if not math.isfinite(temperature) or temperature < 0:
        raise ValueError(f"temperature must be a finite number >= 0, got {temperature!r}")
    if top_k is not None and (not isinstance(top_k, int) or top_k < 1):
        raise ValueError(f"top_k must be a python int >= 1 or None, got {top_k!r}")
    if top_p is not None and not 0.0 < top_p <= 1.0:
        raise ValueError(f"top_p must be in (0, 1] or None, got {top_p!r}")
    if temperature >= SMALLEST_TEMPERATURE and (
        seed is None or isinstance(seed, keras.random.SeedGenerator)
    ):
        seed = keras.random.randint((), 0, 2**31 - 1, dtype="int32", seed=seed)
    return {"temperature": temperature, "top_k": top_k, "top_p": top_p, "seed": seed}


def sample_step(logits, log_probs, t, sentences, temperature=1.0, top_k=None, top_p=None,
                seed=None):
    """Sampling's step function: `draw` with the row's ``uniforms(seed, sentences, t)``.

    Nothing is kept from step to step, so the loop traces the same under TensorFlow and JAX.
    The loop scores the samples with the model's own log-probabilities (temperature 1, no
    filtering), so they compare with greedy and beam scores.

    ``temperature == 0`` means arg-max (greedy), as does one below float32's smallest normal
    number (``SMALLEST_TEMPERATURE``); a temperature near 0 (e.g. 1e-6), or ``top_k=1``, also
    gives the greedy output unless the best logits tie.

    Args:
        logits: float32 ``(batch, vocab)``.
        log_probs: float32 ``(batch, vocab)`` (unused: the temperature applies to the logits).
        t: int32 scalar, the step.
        sentences: int32 ``(batch,)``, each row's sentence index in the caller's input.
        temperature, top_k, top_p, seed: as `sampling_options` returns them.

    Returns:
        int32 ``(batch,)``.

    Example:
        >>> decode(model, encoder_tokens, "sample", temperature=0.7, top_p=0.9, seed=1).tokens
    """
    del log_probs
    if temperature < SMALLEST_TEMPERATURE:
        return ops.cast(ops.argmax(logits, axis=-1), "int32")
    return draw(logits, uniforms(seed, sentences, t), temperature, top_k, top_p)
