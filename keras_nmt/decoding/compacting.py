"""Decoding loops that drop finished sentences from the batch now and then (TensorFlow only).

The plain loops keep every row of the batch until its longest sentence ends, so a batch whose
outputs have very different lengths pays for rows that have already stopped. These loops
compact the batch instead: when the sentences still decoding fit in at most half of the rows
held, they are gathered (decoder state, encoder memory, buffers, scores, lengths, limits) into
a smaller batch (rounded up to whole blocks of ``ROW_MULTIPLE`` rows, see there), after every
sentence held has been written into the full-size outputs at its index in the caller's batch.
The batch at least halves each time, so a batch of ``B`` rows is compacted at most
``log2(B)`` times, whatever the number of steps.

``compacting_greedy`` is greedy decoding's loop; beam search (``beam_search.py``) uses the
helpers below (``plan``, ``gather``, ``write_back``, ``while_loop``) for whole sentences of
``beam_size`` rows. Both treat each sentence on its own, so the tokens, lengths and scores are
the plain loops'. The batch size changes inside the ``tf.while_loop``, so this is TensorFlow
code with shape invariants of unknown batch size; the JAX backend (``jax.jit`` needs static
shapes) and sampling (its random draws depend on the batch's shape) keep the plain loops.
"""

import tensorflow as tf
from keras import ops

from keras_nmt.decoding._stepwise import start_stepwise, stepwise_result, stepwise_step
from keras_nmt.decoding.decoding_model import DecodingModel

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


def while_loop(cond, body, t0, carry, fixed=("out",)):
    """``tf.while_loop`` over ``(t, carry)`` whose batch-major leaves may change batch size.

    The entries of ``carry`` named in ``fixed`` (the full-size outputs) keep their shapes.
    """
    invariants = {
        key: tf.nest.map_structure(
            (lambda x: tf.TensorShape(x.shape)) if key in fixed else _any_batch, value
        )
        for key, value in carry.items()
    }
    return tf.while_loop(
        cond, body, (t0, carry), shape_invariants=(tf.TensorShape([]), invariants)
    )


def write_back(out, values, index):
    """``out`` (full-size) with ``values`` (same structure, one row per ``index``) at ``index``."""
    return tf.nest.map_structure(
        lambda full, part: tf.tensor_scatter_nd_update(full, index[:, None], part), out, values
    )


def plan(done, original, batch, group=ROW_MULTIPLE, rows_per_sentence=1):
    """Whether to compact, and which rows to keep, in whole blocks as ``ROW_MULTIPLE`` says.

    Args:
        done: bool ``(n,)``, the sentences held now that have stopped.
        original: int32 ``(n,)``, their indices in the caller's batch.
        batch: the caller's batch size (int32 scalar).
        group: python int, sentences per whole block of rows (``ROW_MULTIPLE`` rows of one
            sentence each; ``lcm(beam, 8) / beam`` for beam search's ``beam`` rows each).
        rows_per_sentence: python int (``beam``). When the caller's partial group holds
            ``ROW_MULTIPLE`` rows or more (a beam that does not divide 8, e.g. 3 beams of 29
            sentences), the batch is never compacted: a row of that group next to the partial
            block was measured to change in the last bits when the batch before it shrank.

    Returns:
        ``(shrink, keep)``: a bool scalar, true when the batch would at least halve (and some
        sentence still decodes), and int32 ``(m,)`` the sentences to keep, in order: those still
        decoding, finished ones filling the last group, then the caller's partial group (its
        last ``batch % group`` sentences) whole and unchanged.
    """
    first_partial = batch - batch % group
    in_groups = original < first_partial
    still = tf.logical_and(tf.logical_not(done), in_groups)
    remaining = tf.reduce_sum(tf.cast(still, tf.int32))
    partial = tf.reduce_sum(tf.cast(tf.logical_not(in_groups), tf.int32))
    size = -(-remaining // group) * group
    shrink = tf.logical_and(
        tf.logical_not(tf.reduce_all(done)), 2 * (size + partial) <= tf.shape(done)[0]
    )
    shrink = tf.logical_and(shrink, (batch % group) * rows_per_sentence < ROW_MULTIPLE)
    # Stopped sentences after the others, and the partial group last (stable: in order).
    key = tf.cast(done, tf.int32) + 2 * tf.cast(tf.logical_not(in_groups), tf.int32)
    order = tf.argsort(key, stable=True)
    keep = tf.concat([order[:size], order[tf.size(order) - partial :]], axis=0)
    return shrink, keep


def where(shrink, compact, carry):
    """``compact()`` when ``shrink`` (a bool scalar) is true, else ``carry`` (a ``tf.cond``)."""
    return tf.cond(shrink, compact, lambda: carry)


def gather(structure, index):
    """Every leaf of ``structure`` at rows ``index`` (axis 0)."""
    return tf.nest.map_structure(lambda x: tf.gather(x, index, axis=0), structure)


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
    max_length, memory, limits, carry = start_stepwise(
        model, encoder_tokens, max_length, max_length_a, max_length_b, return_attention,
        batch_cache,
    )
    batch = tf.shape(limits)[0]
    outputs = [key for key in ("tokens", "log_probs", "lengths", "attention") if key in carry]
    # The rows still in the batch ("rows": each one's index in the caller's batch), their
    # memory and limits, and the full-size outputs ("out"), written when rows leave the batch
    # and at the end.
    carry.update(rows=tf.range(batch, dtype=tf.int32), memory=memory, limits=limits)
    carry["out"] = {key: carry[key] for key in outputs}

    def write_out(carry):
        return write_back(carry["out"], {key: carry[key] for key in outputs}, carry["rows"])

    def cond(t, carry):
        return tf.logical_and(t < max_length, tf.logical_not(tf.reduce_all(carry["done"])))

    def compact(carry, keep):
        out = write_out(carry)
        carry = gather({key: value for key, value in carry.items() if key != "out"}, keep)
        return {**carry, "out": out}

    def body(t, carry):
        new = stepwise_step(model, _argmax, t, carry, carry["memory"], carry["limits"])
        shrink, keep = plan(new["done"], carry["rows"], batch)
        new = where(shrink, lambda: compact(new, keep), new)
        return t + 1, new

    _, carry = while_loop(cond, body, tf.constant(0, tf.int32), carry)
    return stepwise_result(write_out(carry), trim)


def _argmax(logits, log_probs, t):
    del log_probs, t  # greedy: the most probable token
    return ops.argmax(logits, axis=-1)
