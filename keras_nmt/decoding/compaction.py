"""Row compaction, an optional policy of the decoding loop (TensorFlow only): finished
sentences leave the batch now and then.

The plain loop keeps every row of the batch until its longest sentence ends, so a batch whose
outputs have very different lengths pays for rows that have already stopped. With this policy
the loop compacts the batch instead: when the sentences still decoding fit in at most half of
the rows held, they are gathered (decoder state, encoder memory, hypotheses, limits) into a
smaller batch (rounded up to whole blocks of ``ROW_MULTIPLE`` rows, see there), after every
sentence held has been written into the full-size hypotheses at its index in the caller's
batch. The batch at least halves each time, so a batch of ``B`` rows is compacted at most
``log2(B)`` times, whatever the number of steps. A sentence's rows (one, or ``beam_size`` for
beam search) move together.

Each sentence decodes on its own, so the tokens, lengths and scores are the plain loop's. The
batch size changes inside the ``tf.while_loop``, so this is TensorFlow code with shape
invariants of unknown batch size; the JAX backend (``jax.jit`` needs static shapes) keeps the
plain loop.

The loop's carry, as `keras_nmt.decoding.loop.decode` makes it: ``input`` and ``state`` have
one row per hypothesis, ``hypotheses`` and ``done`` one per sentence, ``held`` the values of the
sentences held now (``memory``, one row per hypothesis; ``limits``, ``source_mask``,
``sentences`` and ``index``, their index in the caller's batch) and ``out`` the full-size
hypotheses.
"""

import functools
import math

import tensorflow as tf
from keras import ops

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


def plan(done, original, batch, group=ROW_MULTIPLE, rows_per_sentence=1):
    """Whether to compact, and which sentences to keep, in whole blocks as ``ROW_MULTIPLE`` says.

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
    shrink = tf.logical_and(tf.logical_not(tf.reduce_all(done)),
                            2 * (size + partial) <= tf.shape(done)[0])
    shrink = tf.logical_and(shrink, (batch % group) * rows_per_sentence < ROW_MULTIPLE)
    # Stopped sentences after the others, and the partial group last (stable: in order).
    key = tf.cast(done, tf.int32) + 2 * tf.cast(tf.logical_not(in_groups), tf.int32)
    order = tf.argsort(key, stable=True)
    keep = tf.concat([order[:size], order[tf.size(order) - partial :]], axis=0)
    return shrink, keep


def gather(structure, index):
    """Every leaf of ``structure`` at rows ``index`` (axis 0)."""
    return tf.nest.map_structure(lambda x: tf.gather(x, index, axis=0), structure)


class Compaction:
    """The policy for one call of the loop: ``batch`` sentences of ``beams`` rows each.

    Example (what the loop does with it):
        >>> policy = Compaction(batch, beams)
        >>> carry = policy.start(carry)                       # adds the full-size "out"
        >>> _, carry = policy.while_loop(loop_vars)(cond, body, loop_vars)
        >>> # in body, after each step: new = policy.compact(new)
        >>> hypotheses = policy.result(carry)                 # every sentence, full size
    """

    def __init__(self, batch, beams):
        self.batch, self.beams = batch, beams
        self.group = math.lcm(beams, ROW_MULTIPLE) // beams  # sentences per whole block

    def start(self, carry):
        """The first carry with the full-size hypotheses beside those held (``out``)."""
        return {**carry, "out": carry["hypotheses"]}

    def while_loop(self, loop_vars):
        """``tf.while_loop`` with the shape invariants of ``loop_vars`` (``(t, carry)``): the
        batch dimension of every leaf may change, but not the full-size ``out``'s. A partial
        function, so that the loop calls ``tf.while_loop`` itself."""
        t, carry = loop_vars
        invariants = {key: tf.nest.map_structure(
            (lambda x: tf.TensorShape(x.shape)) if key == "out" else _any_batch, value)
            for key, value in carry.items()}
        return functools.partial(tf.while_loop,
                                 shape_invariants=(tf.TensorShape(t.shape), invariants))

    def compact(self, carry):
        """``carry`` gathered to the sentences `plan` keeps, when it at least halves the
        batch (a ``tf.cond``), the hypotheses of all held written to ``out`` first."""
        shrink, keep = plan(carry["done"], carry["held"]["index"], self.batch, self.group,
                            rows_per_sentence=self.beams)
        return tf.cond(shrink, lambda: self._keep(carry, keep), lambda: carry)

    def _keep(self, carry, keep):
        rows = ops.reshape(keep[:, None] * self.beams + ops.arange(self.beams, dtype="int32"),
                           (-1,))
        held = {key: gather(value, rows if key == "memory" else keep)
                for key, value in carry["held"].items()}
        return {
            "input": gather(carry["input"], rows),
            "state": gather(carry["state"], rows),
            "hypotheses": gather(carry["hypotheses"], keep),
            "done": gather(carry["done"], keep),
            "held": held,
            "out": self.result(carry),
        }

    def result(self, carry):
        """The full-size hypotheses: ``out`` with those held written at their index."""
        index = carry["held"]["index"][:, None]
        return tf.nest.map_structure(lambda full, part: tf.tensor_scatter_nd_update(
            full, index, part), carry["out"], carry["hypotheses"])
