"""Greedy decoding: the most probable token at every step."""

import keras
from keras import ops

from keras_nmt.decoding._stepwise import run_stepwise
from keras_nmt.decoding.decode_result import DecodeResult
from keras_nmt.decoding.decoding_model import DecodingModel
from keras_nmt.decoding.decoding_options import DEFAULT_MAX_LENGTH_A, DEFAULT_MAX_LENGTH_B

# Under TensorFlow, drop finished sentences from the batch as the loop goes (`compacting`);
# the outputs are the same. A module switch so that benchmarks can time both loops.
COMPACT = True


def greedy_decode(
    model: DecodingModel,
    encoder_tokens,
    max_length: int | None = None,
    max_length_a: float = DEFAULT_MAX_LENGTH_A,
    max_length_b: float = DEFAULT_MAX_LENGTH_B,
    return_attention: bool = False,
    trim: bool = True,
    batch_cache: bool = True,
) -> DecodeResult:
    """Greedy decoding of a whole batch in one graph loop (``keras.ops.while_loop``).

    The first decoder input is ``START_ID``; each step feeds back the arg-max token. A sentence
    stops when it emits ``END_ID`` (kept in the output) or reaches its length limit
    ``min(max_length, ceil(max_length_a * source_len + max_length_b))`` (at least 1), where
    ``source_len`` counts the ``True`` entries of ``memory["source_mask"]``; the loop ends when
    every sentence has stopped. Sentences that have stopped are fed ``PAD_ID`` and add nothing.

    Works eagerly and inside ``tf.function`` with a dynamic batch size and source length (no
    Python loop over time steps). Under TensorFlow (``COMPACT``), the loop drops finished
    sentences from the batch whenever it can halve it (``keras_nmt.decoding.compacting``),
    so a batch of very different output lengths stops paying for rows that have ended; the
    outputs are the same. Other backends run the plain ``keras.ops`` loop.

    Args:
        model: keeps the inference contract (``encode``, ``initial_state``, ``decode_step``,
            ``has_attention``); see CONTRIBUTING.md.
        encoder_tokens: int ``(batch, src_len)`` source ids padded with ``PAD_ID``.
        max_length: python int, the most tokens any hypothesis may have (``END`` included); also
            given to ``model.initial_state`` to size fixed caches when ``batch_cache`` is
            false. ``None``: 100, or the model's own ``max_length`` when smaller (a
            Transformer's positions).
        max_length_a: python float ``a`` of the per-sentence limit (default 1.5).
        max_length_b: python float ``b`` of the per-sentence limit (default 10).
        return_attention: also return the attention weights (ignored, ``None``, when
            ``model.has_attention`` is false).
        trim: cut the time axis to the longest hypothesis in the batch; pass ``False`` to keep
            ``max_length`` (a static shape, e.g. under ``jax.jit``).
        batch_cache: size the model's decoding caches to the batch's longest per-sentence
            limit (the default; the same outputs, fewer positions per step) instead of
            ``max_length``; ``False`` keeps a static cache shape.

    Returns:
        A ``DecodeResult`` with tokens ``(batch, L)``, lengths, scores = log_probs ``(batch,)``
        (sum of the log-probabilities of the emitted tokens, ``END`` included) and attention
        ``(batch, L, src_len)`` or ``None``.
    """

    options = dict(max_length=max_length, max_length_a=max_length_a, max_length_b=max_length_b,
                   return_attention=return_attention, trim=trim, batch_cache=batch_cache)
    if COMPACT and keras.backend.backend() == "tensorflow":
        from keras_nmt.decoding.compacting import compacting_greedy

        return compacting_greedy(model, encoder_tokens, **options)

    def choose(logits, log_probs, t):
        del log_probs, t
        return ops.cast(ops.argmax(logits, axis=-1), "int32")

    return run_stepwise(model, encoder_tokens, choose, **options)
