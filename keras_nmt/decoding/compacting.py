"""Greedy decoding that drops finished sentences from the batch now and then (TensorFlow only).

The plain loop (``_stepwise.run_stepwise``) keeps every row of the batch until its longest
sentence ends, so a batch whose outputs have very different lengths pays for rows that have
already stopped. This loop compacts the batch instead: when at most half of the rows it holds
are still decoding, it gathers those rows (their decoder state, the encoder memory, token
buffer, scores, lengths and limits) into a smaller batch (rounded up to whole blocks of
``ROW_MULTIPLE`` rows, see there), and first writes every row it holds into the full-size
outputs by the row's original index. The batch at least halves each time, so a batch of ``B``
rows is compacted at most ``log2(B)`` times, whatever the number of steps.

Greedy decoding treats each row on its own, so the tokens, lengths and scores are the ones of
the plain loop. The batch size changes inside the ``tf.while_loop``, so the loop is TensorFlow
code with shape invariants of unknown batch size; the JAX backend (``jax.jit`` needs static
shapes) keeps the plain loop.
"""

import tensorflow as tf
from keras import ops

from keras_nmt.decoding import _common
from keras_nmt.decoding.decode_result import DecodeResult
from keras_nmt.decoding.decoding_model import DecodingModel
from keras_nmt.special_ids import END_ID, PAD_ID, START_ID

# The CPU matmul kernels work on blocks of 8 rows and compute the rows of a last, partial block
# of ``r`` rows in another order (one that depends on ``r``): a row's numbers depend on whether
# it sits in a whole block, or in a partial block of which size. So the compacted batch keeps
# whole blocks (finished rows fill the last one up) followed by the caller's partial block
# unchanged, and every row gets the same scores, to the last bit, as in the plain loop
# (checked on oneDNN's float32 kernels of an AVX-512 CPU; other kernels may differ in the last
# bits, as the plain loop's own scores can between batch sizes).
ROW_MULTIPLE = 8


def _any_batch(tensor):
    """The shape invariant of a batch-major loop variable: its batch dimension may change."""
    shape = tf.TensorShape(tensor.shape)
    if shape.rank is None or shape.rank == 0:
        return shape
    return tf.TensorShape([None]).concatenate(shape[1:])


def _write_rows(out, live):
    """Writes every row ``live`` holds into the full-size outputs ``out`` at its original index."""
    index = live["rows"][:, None]
    return {key: tf.tensor_scatter_nd_update(value, index, live[key]) for key, value in out.items()}


def compacting_greedy(
    model: DecodingModel,
    encoder_tokens,
    max_length,
    max_length_a,
    max_length_b,
    return_attention,
    trim,
    batch_cache=True,
):
    """Greedy decoding of the batch in a ``tf.while_loop`` that compacts finished rows away.

    The arguments and the result are ``greedy_decode``'s (see there); the outputs are the same
    as the plain loop's.
    """
    max_length, memory, batch, src_len, limits = _common.encode_source(
        model, encoder_tokens, max_length, max_length_a, max_length_b
    )
    state = model.initial_state(memory, _common.cache_length(limits, max_length, batch_cache))
    want_attention = bool(return_attention) and bool(model.has_attention)

    # The rows still in the batch ("rows": each one's index in the caller's batch).
    live = {
        "rows": tf.range(batch, dtype=tf.int32),
        "memory": memory,
        "state": state,
        "limits": limits,
        "input": tf.fill([batch], tf.constant(START_ID, tf.int32)),
        "done": tf.zeros([batch], tf.bool),
        "tokens": tf.zeros([batch, max_length], tf.int32),
        "log_probs": tf.zeros([batch], tf.float32),
        "lengths": tf.zeros([batch], tf.int32),
    }
    # The full-size outputs, written when rows leave the batch and at the end.
    out = {
        "tokens": tf.zeros([batch, max_length], tf.int32),
        "log_probs": tf.zeros([batch], tf.float32),
        "lengths": tf.zeros([batch], tf.int32),
    }
    if want_attention:
        live["attention"] = tf.zeros([batch, max_length, src_len], tf.float32)
        out["attention"] = tf.zeros([batch, max_length, src_len], tf.float32)

    def cond(t, live, out):
        del out
        return tf.logical_and(t < max_length, tf.logical_not(tf.reduce_all(live["done"])))

    # The partial block of the caller's batch (its last `batch % ROW_MULTIPLE` rows) stays
    # whole, at the end of the batch, so that its rows keep their numbers too.
    first_partial = batch - batch % ROW_MULTIPLE

    def compact(live, out, size, partial):
        out = _write_rows(out, live)
        # Rows still decoding (in order), then finished ones (they add nothing), then the
        # partial block: keep the first `size` and the partial block.
        key = tf.cast(live["done"], tf.int32) + 2 * tf.cast(live["rows"] >= first_partial, tf.int32)
        order = tf.argsort(key, stable=True)
        keep = tf.concat([order[:size], order[tf.size(order) - partial :]], axis=0)
        live = tf.nest.map_structure(lambda x: tf.gather(x, keep, axis=0), live)
        return live, out

    def body(t, live, out):
        logits, state, attention = model.decode_step(live["input"], live["state"], live["memory"])
        logits = ops.cast(logits, "float32")
        log_probs = ops.log_softmax(logits, axis=-1)  # (rows, vocab)
        active = ops.logical_not(live["done"])
        token = ops.where(active, ops.cast(ops.argmax(logits, axis=-1), "int32"), PAD_ID)
        token_log_prob = ops.take_along_axis(log_probs, token[:, None], axis=1)[:, 0]
        done = ops.logical_or(
            live["done"],
            ops.logical_or(ops.equal(token, END_ID), ops.greater_equal(t + 1, live["limits"])),
        )
        new = dict(live)
        new.update(
            state=state,
            input=token,
            done=done,
            tokens=_common.write_at(live["tokens"], token, t, axis=1),
            log_probs=live["log_probs"] + ops.where(active, token_log_prob, 0.0),
            lengths=live["lengths"] + ops.cast(active, "int32"),
        )
        if want_attention:
            step = ops.where(active[:, None], ops.cast(attention, "float32"), 0.0)
            new["attention"] = _common.write_at(live["attention"], step, t, axis=1)
        in_blocks = live["rows"] < first_partial
        still = tf.logical_and(tf.logical_not(done), in_blocks)
        remaining = tf.reduce_sum(tf.cast(still, tf.int32))
        partial = tf.reduce_sum(tf.cast(tf.logical_not(in_blocks), tf.int32))
        size = -(-remaining // ROW_MULTIPLE) * ROW_MULTIPLE
        # Compact when the batch at least halves (and some rows decode: else the loop ends).
        shrink = tf.logical_and(
            tf.logical_not(tf.reduce_all(done)), 2 * (size + partial) <= tf.shape(done)[0]
        )
        new, out = tf.cond(
            shrink, lambda: compact(new, out, size, partial), lambda: (new, out)
        )
        return t + 1, new, out

    t0 = tf.constant(0, tf.int32)
    invariants = (
        tf.TensorShape([]),
        tf.nest.map_structure(_any_batch, live),
        tf.nest.map_structure(lambda x: tf.TensorShape(x.shape), out),
    )
    _, live, out = tf.while_loop(cond, body, (t0, live, out), shape_invariants=invariants)
    out = _write_rows(out, live)

    tokens, attention = out["tokens"], out.get("attention")
    if trim:
        tokens, attention = _common.trim_to_longest(out["lengths"], tokens, attention, axis=1)
    return DecodeResult(
        tokens=tokens,
        lengths=out["lengths"],
        scores=out["log_probs"],
        log_probs=out["log_probs"],
        attention=attention,
    )
