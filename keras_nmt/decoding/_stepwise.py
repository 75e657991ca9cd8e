"""The one-hypothesis-per-sentence loop shared by greedy decoding and sampling (private)."""

from keras import ops

from keras_nmt.decoding.buffers import trim_to_longest, write_at
from keras_nmt.decoding.decode_result import DecodeResult
from keras_nmt.decoding.decoding_model import DecodingModel
from keras_nmt.decoding.length_limits import cache_length, encode_source
from keras_nmt.special_ids import END_ID, PAD_ID, START_ID


def run_stepwise(
    model: DecodingModel,
    encoder_tokens,
    choose,
    max_length,
    max_length_a,
    max_length_b,
    return_attention,
    trim,
    batch_cache=True,
):
    """Decodes the whole batch, one token per sentence and step, in a ``while_loop``.

    Args:
        model: an object keeping the inference contract (``encode``, ``initial_state``,
            ``decode_step``, ``has_attention``).
        encoder_tokens: int ``(batch, src_len)``, padded with ``PAD_ID``.
        choose: ``choose(logits, log_probs, t) -> int32 (batch,)`` picks the next token from
            float32 ``logits`` and ``log_probs`` ``(batch, vocab)`` at step ``t`` (int32 scalar).
        max_length: python int, global cap on emitted tokens (``END`` included), or ``None``
            (see ``length_limits.resolve_length_options``).
        max_length_a: python float, per-sentence limit ``ceil(a * source_len + b)``.
        max_length_b: python float.
        return_attention: python bool.
        trim: python bool, cut the outputs to the longest hypothesis.
        batch_cache: python bool, size the model's caches to the batch's longest limit
            (see ``length_limits.cache_length``).

    Returns:
        A single-hypothesis ``DecodeResult``.
    """
    max_length, memory, limits, carry = start_stepwise(
        model, encoder_tokens, max_length, max_length_a, max_length_b, return_attention,
        batch_cache,
    )

    def cond(t, carry):
        return ops.logical_and(ops.less(t, max_length), ops.logical_not(ops.all(carry["done"])))

    def body(t, carry):
        return t + 1, stepwise_step(model, choose, t, carry, memory, limits)

    t0 = ops.convert_to_tensor(0, dtype="int32")
    _, carry = ops.while_loop(cond, body, (t0, carry))

    return stepwise_result(carry, trim)


def start_stepwise(
    model, encoder_tokens, max_length, max_length_a, max_length_b, return_attention, batch_cache
):
    """Encodes the source and makes the loop's first carry (arguments: see `run_stepwise`).

    Returns:
        ``(max_length, memory, limits, carry)``: the python int cap, the model's memory, int32
        ``(batch,)`` per-sentence limits, and the carry: ``input`` (``START_ID``), ``state``,
        zero ``tokens`` ``(batch, max_length)``, ``log_probs``, ``lengths``, ``done``, and
        ``attention`` ``(batch, max_length, src_len)`` when asked for and the model has one.
    """
    max_length, memory, batch, src_len, limits = encode_source(
        model, encoder_tokens, max_length, max_length_a, max_length_b
    )
    carry = {
        "input": ops.full((batch,), START_ID, dtype="int32"),
        "state": model.initial_state(memory, cache_length(limits, max_length, batch_cache)),
        "tokens": ops.zeros((batch, max_length), dtype="int32"),
        "log_probs": ops.zeros((batch,), dtype="float32"),
        "lengths": ops.zeros((batch,), dtype="int32"),
        "done": ops.zeros((batch,), dtype="bool"),
    }
    if bool(return_attention) and bool(model.has_attention):
        carry["attention"] = ops.zeros((batch, max_length, src_len), dtype="float32")
    return max_length, memory, limits, carry


def stepwise_step(model, choose, t, carry, memory, limits):
    """One step of every sentence of the carry: the next token, its score, the new state.

    Args:
        model, choose: see `run_stepwise`.
        t: int32 scalar, the step.
        carry: the carry of `start_stepwise` (other entries pass through unchanged).
        memory: the model's memory for the carry's rows.
        limits: int32 ``(batch,)``, each sentence's length limit.

    Returns:
        The new carry; a sentence stops at ``END`` or at its own length limit.
    """
    logits, state, attention = model.decode_step(carry["input"], carry["state"], memory)
    logits = ops.cast(logits, "float32")
    log_probs = ops.log_softmax(logits, axis=-1)  # (batch, vocab)
    active = ops.logical_not(carry["done"])  # (batch,)
    token = ops.where(active, ops.cast(choose(logits, log_probs, t), "int32"), PAD_ID)
    token_log_prob = ops.take_along_axis(log_probs, token[:, None], axis=1)[:, 0]
    new = {
        **carry,
        "input": token,
        "state": state,
        "tokens": write_at(carry["tokens"], token, t, axis=1),
        "log_probs": carry["log_probs"] + ops.where(active, token_log_prob, 0.0),
        "lengths": carry["lengths"] + ops.cast(active, "int32"),
        "done": ops.logical_or(
            carry["done"],
            ops.logical_or(ops.equal(token, END_ID), ops.greater_equal(t + 1, limits)),
        ),
    }
    if "attention" in carry:
        step = ops.where(active[:, None], ops.cast(attention, "float32"), 0.0)
        new["attention"] = write_at(carry["attention"], step, t, axis=1)
    return new


def stepwise_result(carry, trim):
    """The `DecodeResult` of a one-token-per-step loop's last carry (``tokens``, ``lengths``,
    ``log_probs``, optional ``attention``): the score is the log-probability; with ``trim``
    the buffers are cut to the longest output."""
    tokens, attention = carry["tokens"], carry.get("attention")
    if trim:
        tokens, attention = trim_to_longest(carry["lengths"], tokens, attention, axis=1)
    return DecodeResult(
        tokens=tokens,
        lengths=carry["lengths"],
        scores=carry["log_probs"],
        log_probs=carry["log_probs"],
        attention=attention,
    )
