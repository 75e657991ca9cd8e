"""Row compaction, a policy of the decoding loop: the plain loop's outputs exactly (greedy, beam
search, sampling), fewer rows per step."""

import numpy as np
import pytest
import tensorflow as tf

from keras_nmt.decoding import loop
from keras_nmt.decoding.loop import decode
from tests.decoding.fake_models import FakeModel, random_table
from tests.decoding.helpers import to_numpy

pytestmark = pytest.mark.tensorflow

# Per-sentence limit = source length (a=1, b=0), so output lengths follow the source lengths.
OPTIONS = dict(max_length=16, max_length_a=1.0, max_length_b=0.0)


def sources(lengths, seed=0):
    """int32 ``(len(lengths), max(lengths))`` sources of those lengths (real tokens 4-7)."""
    rng = np.random.default_rng(seed)
    out = np.zeros((len(lengths), max(lengths)), np.int32)
    for i, length in enumerate(lengths):
        out[i, :length] = rng.integers(4, 8, size=length)
    return out


def mixed_lengths(batch, seed=1):
    """Very different lengths: mostly short sentences, a few long ones, in shuffled order."""
    rng = np.random.default_rng(seed)
    long = rng.random(batch) < 0.15
    lengths = np.where(long, rng.integers(9, 15, batch), rng.integers(1, 4, batch))
    return [int(x) for x in lengths]


def decode_both(model, encoder_tokens, monkeypatch, strategy, run=decode, **options):
    """The outputs of the compacting loop and of the plain loop."""
    compacted = to_numpy(run(model, encoder_tokens, strategy, **options))
    monkeypatch.setattr(loop, "COMPACT", False)
    plain = to_numpy(run(model, encoder_tokens, strategy, **options))
    monkeypatch.setattr(loop, "COMPACT", True)
    return compacted, plain


def assert_same(compacted, plain):
    for got, want in zip(compacted, plain, strict=True):
        if want is None:
            assert got is None
        else:
            np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("batch", [1, 5, 19, 32, 45])
@pytest.mark.parametrize("end_bias", [-20.0, 0.0])  # END never chosen / END ends some early
@pytest.mark.parametrize(("strategy", "options"), [("greedy", {}), ("sample", {"seed": 3})])
def test_compacting_loop_gives_exactly_the_plain_loops_outputs(batch, end_bias, strategy,
                                                               options, monkeypatch):
    model = FakeModel(random_table(7, end_bias=end_bias), has_attention=True,
                      source_weight=0.3, prev_weight=0.2)
    encoder_tokens = sources(mixed_lengths(batch))
    compacted, plain = decode_both(model, encoder_tokens, monkeypatch, strategy,
                                   return_attention=True, **options, **OPTIONS)
    assert_same(compacted, plain)
    assert len(set(plain.lengths.tolist())) > 1 or batch == 1


@pytest.mark.parametrize("signature", [[None, None], [45, 14]])  # dynamic and static shapes
def test_compacting_loop_traced_gives_the_plain_loops_outputs(signature, monkeypatch):
    model = FakeModel(random_table(8, end_bias=-1.0), has_attention=True, source_weight=0.3)
    encoder_tokens = sources(mixed_lengths(45))
    assert encoder_tokens.shape == (45, 14)

    def traced(model, encoder_tokens, strategy, **options):
        @tf.function(input_signature=[tf.TensorSpec(signature, tf.int32)], autograph=False)
        def run(encoder_tokens):
            return decode(model, encoder_tokens, strategy, **options)

        return run(tf.constant(encoder_tokens))

    compacted, plain = decode_both(model, encoder_tokens, monkeypatch, "greedy", run=traced,
                                   return_attention=True, **OPTIONS)
    assert_same(compacted, plain)
    eager = to_numpy(decode(model, encoder_tokens, "greedy", return_attention=True, **OPTIONS))
    assert_same(compacted, eager)


@pytest.mark.parametrize("batch", [1, 5, 19, 45])
@pytest.mark.parametrize(("beam_size", "options"), [
    (1, dict(normalization="none")),
    (3, dict(coverage_penalty=0.2, n_best=2)),
    (4, dict(length_penalty=0.6)),
    (5, dict(normalization="average")),
])
def test_compacting_beam_search_gives_exactly_the_plain_loops_outputs(
    batch, beam_size, options, monkeypatch
):
    model = FakeModel(random_table(11, end_bias=0.5), has_attention=True,
                      source_weight=0.3, prev_weight=0.2)
    encoder_tokens = sources(mixed_lengths(batch, seed=batch))
    compacted, plain = decode_both(model, encoder_tokens, monkeypatch, "beam",
                                   beam_size=beam_size, return_attention=True, **options,
                                   **OPTIONS)
    assert_same(compacted, plain)


def test_compacting_beam_search_traced_gives_the_plain_loops_outputs(monkeypatch):
    model = FakeModel(random_table(12, end_bias=0.5), has_attention=True, source_weight=0.3)
    encoder_tokens = sources(mixed_lengths(27))

    def traced(model, encoder_tokens, strategy, **options):
        @tf.function(input_signature=[tf.TensorSpec([None, None], tf.int32)], autograph=False)
        def run(encoder_tokens):
            return decode(model, encoder_tokens, strategy, **options)

        return run(tf.constant(encoder_tokens))

    compacted, plain = decode_both(model, encoder_tokens, monkeypatch, "beam", run=traced,
                                   beam_size=3, coverage_penalty=0.1, return_attention=True,
                                   **OPTIONS)
    assert_same(compacted, plain)


class RowCounter(FakeModel):
    """Counts the rows ``decode_step`` is given (a variable, so graph loops count too)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.rows = tf.Variable(0, dtype=tf.int32)
        self.batch_sizes = []

    def decode_step(self, token, state, memory):
        self.rows.assign_add(tf.shape(token)[0])
        if tf.executing_eagerly():
            self.batch_sizes.append(int(token.shape[0]))
        return super().decode_step(token, state, memory)


def test_finished_rows_leave_the_batch_in_whole_blocks():
    # 32 rows in whole blocks of 8: 31 stop after one token, one runs 9 steps. Then 3 more rows
    # (a partial block) that run 2 steps: they stay whole at the end of the batch.
    lengths = [1] * 31 + [9] + [2, 1, 2]
    model = RowCounter(random_table(9, end_bias=-20.0))
    result = to_numpy(decode(model, sources(lengths), "greedy", **OPTIONS))
    np.testing.assert_array_equal(result.lengths, lengths)
    # Step 1: all 35 rows; then the long row's block (8 rows) and the partial block (3 rows).
    assert model.batch_sizes == [35] + [8 + 3] * 8
    assert int(model.rows.numpy()) == 35 + 11 * 8


def test_compaction_happens_inside_a_traced_loop(monkeypatch):
    lengths = [1] * 31 + [9]
    model = RowCounter(random_table(9, end_bias=-20.0))

    @tf.function(input_signature=[tf.TensorSpec([None, None], tf.int32)], autograph=False)
    def run(encoder_tokens):
        return decode(model, encoder_tokens, "greedy", **OPTIONS).lengths

    np.testing.assert_array_equal(run(tf.constant(sources(lengths))), lengths)
    assert int(model.rows.numpy()) == 32 + 8 * 8
    model.rows.assign(0)
    monkeypatch.setattr(loop, "COMPACT", False)
    plain = tf.function(lambda x: decode(model, x, "greedy", **OPTIONS).lengths, autograph=False)
    np.testing.assert_array_equal(plain(tf.constant(sources(lengths))), lengths)
    assert int(model.rows.numpy()) == 32 * 9


@pytest.mark.parametrize(("beam_size", "batch", "rows_after"), [
    (4, 16, 8),  # whole blocks of 8 rows are 2 sentences: the long one and a stopped one
    (4, 17, 4 * 2 + 4),  # and the 17th sentence (4 rows, the partial block) stays
    (3, 26, 3 * 8 + 3 * 2),  # whole blocks: 8 sentences; 2 more (6 rows) stay
    (3, 27, 3 * 27),  # 3 more would be 9 rows, more than the partial block: no compaction
])
def test_stopped_sentences_leave_the_beam_search_batch(beam_size, batch, rows_after):
    # All but one sentence (the last one in whole blocks) stop after one token.
    group = {4: 2, 3: 8}[beam_size]
    in_groups = batch - batch % group
    lengths = [1] * (in_groups - 1) + [9] + [1] * (batch - in_groups)
    model = RowCounter(random_table(9, end_bias=-20.0))
    result = to_numpy(decode(model, sources(lengths), "beam", beam_size=beam_size, **OPTIONS))
    np.testing.assert_array_equal(result.lengths[:, 0], lengths)
    assert model.batch_sizes == [beam_size * batch] + [rows_after] * 8
