"""The decoding loop: one loop for every strategy, which owns stepping, finishing and batching.

Decoding a batch is the same loop whatever the strategy (as OpenNMT-tf's ``dynamic_decode``
runs a decoding strategy's ``initialize``, ``step`` and ``finalize``, and KerasHub's samplers
supply ``get_next_token``):

1. encode the source once, give each sentence its length limit
   ``min(max_length, ceil(a * source_len + b))``, start the model's state from ``START_ID``;
2. at every step, ONE ``model.decode_step`` call on every row of the batch gives the next-token
   logits; the strategy's step (`keras_nmt.decoding.strategies`) picks each row's next token
   (greedy: the arg-max; sampling: a draw) or, for beam search, the beams to keep, and the
   rows their state comes from;
3. a sentence stops at ``END``, when its strategy says so (beam search: nothing left to gain),
   or at its limit; the loop ends when every sentence has stopped;
4. the strategy's hypotheses become a `DecodeResult`, cut to the longest.

The loop is one ``keras.ops.while_loop`` over the whole batch with ``keras.ops`` only, so it
traces into a ``tf.function`` / SavedModel with a dynamic batch size and source length, and
runs under JAX. Row compaction is a policy of the loop (`keras_nmt.decoding.compaction`,
TensorFlow only): finished sentences leave the batch, with the same outputs.
"""

import keras
from keras import ops

from keras_nmt.decoding.aligned import AlignedModel, aligned_decode
from keras_nmt.decoding.decode_result import DecodeResult, write_at
from keras_nmt.decoding.decoding_model import DecodingModel
from keras_nmt.decoding.decoding_options import COMMON_OPTIONS, GREEDY, DecodingOptions
from keras_nmt.decoding.jax_compiled import can_compile, compiled_decode
from keras_nmt.decoding.length_limits import (
    cache_length,
    resolve_length_options,
    sentence_max_lengths,
)
from keras_nmt.decoding.strategies import STRATEGIES
from keras_nmt.special_ids import END_ID, PAD_ID, START_ID

# Row compaction under TensorFlow (`keras_nmt.decoding.compaction`); the outputs are the same.
# A module switch, so that tests and benchmarks can compare both loops.
COMPACT = True


def decode(model: DecodingModel, encoder_tokens, strategy: "str | DecodingOptions" = "greedy",
           *, sentence_ids=None, record=None, **options) -> DecodeResult:
    """Decodes a batch with the chosen strategy, through the model inference contract only.

    Args:
        model: keeps the inference contract (``DecodingModel``: ``encode``,
            ``initial_state``, ``decode_step``, ``has_attention``), or is an aligned model
            (``AlignedModel``: CTC), which decodes its own frames (``aligned_decode``).
        encoder_tokens: int ``(batch, src_len)`` source ids padded with ``PAD_ID``; a tensor
            with dynamic batch and length inside ``tf.function`` is fine.
        strategy: a ``STRATEGIES`` name (``"greedy"``, ``"beam"``, ``"sample"``), or a
            ``DecodingOptions`` whose fields ``options`` override.
        sentence_ids: int ``(batch,)``, each sentence's index in the caller's input, given to
            the step function: sampling's random numbers belong to the sentence, so a sample
            does not depend on the batch. ``None``: ``0 .. batch - 1``.
        record: a list to which beam search appends each step's candidates (`beam_tree`);
            the loop then runs step by step in Python. ``None``: one graph loop.
        **options: the loop's options and the strategy's (an option the strategy does not read
            raises ``TypeError``; a ``DecodingOptions`` ignores those of the others):

            * ``max_length``: python int, the most tokens per hypothesis (``END`` included);
              ``None``: 100, or the model's own ``max_length`` when smaller (a Transformer's
              positions). Also sizes the model's caches when ``batch_cache`` is false.
            * ``max_length_a``, ``max_length_b``: python floats ``a`` and ``b`` of each
              sentence's limit ``ceil(a * source_len + b)`` (defaults 1.5 and 10), where
              ``source_len`` counts the ``True`` entries of ``memory["source_mask"]``.
            * ``return_attention``: also return the attention weights (``None`` when the model
              has none).
            * ``trim``: cut the time axis to the longest hypothesis; ``False`` keeps
              ``max_length`` (a static shape, e.g. under ``jax.jit``).
            * ``batch_cache``: size the model's caches to the batch's longest limit (the
              default; the same outputs, fewer positions per step) instead of ``max_length``.
            * beam search: ``beam_size`` (default 4), ``n_best``, ``normalization``,
              ``length_penalty``, ``coverage_penalty`` (`keras_nmt.decoding.beam_search`);
              sampling: ``temperature``, ``top_k``, ``top_p``, ``seed``
              (`keras_nmt.decoding.sampling`).

    Eager calls under JAX run through a jitted function compiled once per model, options and
    shape bucket (``keras_nmt.decoding.jax_compiled``); the result is the same.

    Returns:
        ``DecodeResult``: tokens ``(batch, L)`` for greedy decoding and sampling, ``(batch,
        n_best, L)`` for beam search; lengths and scores (greedy, sampling: the sum of the
        log-probabilities of the emitted tokens, ``END`` included; beam search: normalized,
        with coverage); ``.best()`` gives ``(batch, L)`` for all.

    Raises:
        TypeError: ``model`` is not a ``DecodingModel``, or an option does not apply.

    Example:
        >>> decode(model, encoder_tokens, "beam", beam_size=4, n_best=2).tokens  # (batch, 2, L)
    """
    name, options = _strategy_options(strategy, options)
    if isinstance(model, AlignedModel):  # CTC: labels every position at once, no steps
        return aligned_decode(model, encoder_tokens, name, **options)
    if not isinstance(model, DecodingModel):
        raise TypeError(f"{type(model).__name__} does not keep the inference contract "
                        "(encode, initial_state, decode_step, has_attention)")
    if record is None and can_compile(model, name, encoder_tokens, options):
        return compiled_decode(decode, model, name, encoder_tokens, options, sentence_ids)
    chosen = STRATEGIES[name]
    loop = {key: options.pop(key, getattr(GREEDY, key)) for key in COMMON_OPTIONS}
    if chosen.prepare is not None:
        options = chosen.prepare(**options)
    search = (chosen.hypotheses or OneEach)(chosen.step, model.has_attention,
                                            loop["return_attention"], **options)
    search.record = record
    max_length = resolve_length_options(model, loop["max_length"], loop["max_length_a"],
                                        loop["max_length_b"])
    encoder_tokens = ops.convert_to_tensor(encoder_tokens, dtype="int32")
    memory = model.encode(encoder_tokens)
    source_mask = memory["source_mask"]
    batch, src_len = ops.shape(encoder_tokens)[0], ops.shape(source_mask)[1]
    limits = sentence_max_lengths(source_mask, max_length, loop["max_length_a"],
                                  loop["max_length_b"])
    if search.beams > 1:  # each beam of a sentence shares its memory: row b * beams + j
        tile = ops.repeat(ops.arange(batch, dtype="int32"), search.beams, axis=0)
        memory = keras.tree.map_structure(lambda x: ops.take(x, tile, axis=0), memory)
    if sentence_ids is None:
        sentence_ids = ops.arange(batch, dtype="int32")
    # What the step needs of the sentences held: the same for every step of the plain loop.
    held = {"memory": memory, "limits": limits, "source_mask": source_mask,
            "sentences": ops.convert_to_tensor(sentence_ids, dtype="int32")}
    carry = {
        "input": ops.full((batch * search.beams,), START_ID, dtype="int32"),
        "state": model.initial_state(memory, cache_length(limits, max_length,
                                                          loop["batch_cache"])),
        "hypotheses": search.start(batch, max_length, src_len),
        "done": ops.zeros((batch,), dtype="bool"),
    }
    policy = None
    if COMPACT and record is None and keras.backend.backend() == "tensorflow":
        # TensorFlow code, imported here: a JAX run imports no TensorFlow.
        from keras_nmt.decoding.compaction import Compaction  # noqa: PLC0415

        policy = Compaction(batch, search.beams)
        index = ops.arange(batch, dtype="int32")  # each sentence's row in the caller's batch
        carry = policy.start({**carry, "held": {**held, "index": index}})

    def cond(t, carry):
        return ops.logical_and(ops.less(t, max_length), ops.logical_not(ops.all(carry["done"])))

    def body(t, carry):
        now = carry["held"] if policy else held
        logits, state, attention = model.decode_step(carry["input"], carry["state"], now["memory"])
        logits = ops.cast(logits, "float32")
        log_probs = ops.log_softmax(logits, axis=-1)  # (rows, vocab)
        active = ops.logical_not(carry["done"])  # (batch,)
        hypotheses, tokens, origin, stopped = search.advance(
            t, logits, log_probs, attention, carry["hypotheses"], active, now)
        if origin is not None:  # beam search: each row continues the state of row `origin`
            state = keras.tree.map_structure(lambda x: ops.take(x, origin, axis=0), state)
        new = {**carry, "input": tokens, "state": state, "hypotheses": hypotheses,
               "done": ops.logical_or(carry["done"], ops.logical_or(
                   stopped, ops.greater_equal(t + 1, now["limits"])))}
        return t + 1, policy.compact(new) if policy else new

    loop_vars = (ops.convert_to_tensor(0, dtype="int32"), carry)
    if record is not None:  # step by step in Python, for `beam_tree`
        while bool(cond(*loop_vars)):
            loop_vars = body(*loop_vars)
        carry = loop_vars[1]
    elif policy:
        _, carry = policy.while_loop(loop_vars)(cond, body, loop_vars)
        carry = {**carry, "hypotheses": policy.result(carry)}
    else:
        _, carry = ops.while_loop(cond, body, loop_vars)
    result = search.finish(carry["hypotheses"], held)
    return result.trimmed() if loop["trim"] else result


def _strategy_options(strategy, options):
    """The strategy's name and its options (a ``DecodingOptions``'s, overridden by
    ``options``); ``ValueError`` for an unknown name, ``TypeError`` for a foreign option."""
    if isinstance(strategy, DecodingOptions):
        chosen = strategy.replace(**options) if options else strategy
        return chosen.chosen_strategy, chosen.options()
    if strategy not in STRATEGIES:
        raise ValueError(f"strategy must be one of {tuple(STRATEGIES)}, got {strategy!r}")
    unknown = sorted(set(options) - set(STRATEGIES[strategy].options))
    if unknown:
        raise TypeError(f"options {unknown} do not apply to strategy {strategy!r}")
    return strategy, dict(options)


class OneEach:
    """One hypothesis per sentence, extended at each step by the token the step function
    picks (greedy decoding, sampling). A sentence stops when it emits ``END_ID`` (kept in the
    output); once stopped it is fed ``PAD_ID`` and adds nothing.

    Args:
        step: ``step(logits, log_probs, t, sentences, **options) -> (batch,)`` token ids.
        has_attention: ``model.has_attention``.
        return_attention: keep the attention of each step, ``(batch, L, src_len)``.
        **options: the step function's options.
    """

    beams = 1
    record = None  # nothing to record: the tokens are the result

    def __init__(self, step, has_attention, return_attention, **options):
        self.step, self.options = step, options
        self.want_attention = bool(has_attention) and bool(return_attention)

    def start(self, batch, max_length, src_len):
        """Empty hypotheses: tokens ``(batch, max_length)``, log-probabilities and lengths."""
        hypotheses = {
            "tokens": ops.zeros((batch, max_length), dtype="int32"),
            "log_probs": ops.zeros((batch,), dtype="float32"),
            "lengths": ops.zeros((batch,), dtype="int32"),
        }
        if self.want_attention:
            hypotheses["attention"] = ops.zeros((batch, max_length, src_len), dtype="float32")
        return hypotheses

    def advance(self, t, logits, log_probs, attention, hypotheses, active, held):
        """Appends each active sentence's next token; returns the hypotheses, the tokens to
        feed, no reordering of the state, and the sentences that emitted ``END``."""
        chosen = self.step(logits, log_probs, t, held["sentences"], **self.options)
        token = ops.where(active, ops.cast(chosen, "int32"), PAD_ID)
        token_log_prob = ops.take_along_axis(log_probs, token[:, None], axis=1)[:, 0]
        new = {
            "tokens": write_at(hypotheses["tokens"], token, t, axis=1),
            "log_probs": hypotheses["log_probs"] + ops.where(active, token_log_prob, 0.0),
            "lengths": hypotheses["lengths"] + ops.cast(active, "int32"),
        }
        if self.want_attention:
            step = ops.where(active[:, None], ops.cast(attention, "float32"), 0.0)
            new["attention"] = write_at(hypotheses["attention"], step, t, axis=1)
        return new, token, None, ops.equal(token, END_ID)

    def finish(self, hypotheses, held):
        """The `DecodeResult`; the score is the log-probability."""
        del held
        return DecodeResult(hypotheses["tokens"], hypotheses["lengths"], hypotheses["log_probs"],
                            hypotheses["log_probs"], hypotheses.get("attention"))
