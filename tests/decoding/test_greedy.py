import numpy as np
import pytest
from keras import ops

from keras_nmt.decoding.loop import decode
from keras_nmt.special_ids import END_ID, START_ID
from tests.decoding.fake_models import FakeModel, random_table, table_from_rows, teacher_forced
from tests.decoding.helpers import hypothesis, to_numpy

SOURCES = np.array([[4, 5, 6, 7, 4], [7, 0, 0, 0, 0], [5, 5, 6, 0, 0]], dtype=np.int32)


def reference_greedy(model, source, limit):
    """Greedy decoding of one sentence, one python step at a time."""
    memory = model.encode(np.asarray(source, dtype=np.int32)[None, :])
    state = model.initial_state(memory, limit)
    token = np.array([START_ID], dtype=np.int32)
    out, total = [], 0.0
    for _ in range(limit):
        logits, state, _ = model.decode_step(ops.convert_to_tensor(token), state, memory)
        log_probs = ops.convert_to_numpy(ops.log_softmax(logits, axis=-1))[0]
        best = int(np.argmax(log_probs))
        out.append(best)
        total += log_probs[best]
        token = np.array([best], dtype=np.int32)
        if best == END_ID:
            break
    return out, total


def test_greedy_matches_step_by_step_reference_and_teacher_forcing():
    model = FakeModel(random_table(1), source_weight=0.4, prev_weight=0.3)
    result = to_numpy(decode(model, SOURCES, "greedy", max_length=7, max_length_a=0.0,
                                    max_length_b=7.0))
    for i, source in enumerate(SOURCES):
        expected, expected_score = reference_greedy(model, source, 7)
        assert hypothesis(result.tokens[i], result.lengths[i]) == expected
        assert np.all(result.tokens[i, result.lengths[i]:] == 0)
        np.testing.assert_allclose(result.scores[i], expected_score, rtol=1e-5)
        recomputed, _, _ = teacher_forced(model, source, [expected])
        np.testing.assert_allclose(result.log_probs[i], recomputed[0], rtol=1e-5)


def test_greedy_stops_at_end_and_keeps_it():
    # START -> 5 (0.6), then 5 -> END (0.7): greedy gives [5, END].
    table = table_from_rows({(): {5: 0.6, 4: 0.1, 6: 0.1, 7: 0.1, 3: 0.1},
                             (5,): {3: 0.7, 4: 0.1, 5: 0.1, 6: 0.05, 7: 0.05}})
    result = to_numpy(decode(FakeModel(table), SOURCES[:1], "greedy", max_length=10))
    np.testing.assert_array_equal(result.tokens, [[5, END_ID]])
    np.testing.assert_array_equal(result.lengths, [2])
    np.testing.assert_allclose(result.scores, [np.log(0.6) + np.log(0.7)], rtol=1e-6)


def test_per_sentence_length_limit_from_source_length():
    # Never ends by itself (END has probability 0.01 everywhere); limit = ceil(0.5 * n + 1).
    default = {3: 0.01, 4: 0.66, 5: 0.11, 6: 0.11, 7: 0.11}
    model = FakeModel(table_from_rows({}, default=default))
    result = to_numpy(decode(model, SOURCES, "greedy", max_length=3, max_length_a=0.5,
                                    max_length_b=1.0))
    # source lengths 5, 1, 3 -> ceil(3.5)=4 capped at 3, ceil(1.5)=2, ceil(2.5)=3
    np.testing.assert_array_equal(result.lengths, [3, 2, 3])
    np.testing.assert_array_equal(result.tokens, [[4, 4, 4], [4, 4, 0], [4, 4, 4]])
    np.testing.assert_allclose(result.scores, np.log(0.66) * np.array([3, 2, 3]), rtol=1e-5)


def test_untrimmed_output_has_max_length_columns():
    model = FakeModel(random_table(2))
    trimmed = to_numpy(decode(model, SOURCES, "greedy", max_length=9))
    full = to_numpy(decode(model, SOURCES, "greedy", max_length=9, trim=False))
    assert full.tokens.shape == (3, 9)
    assert trimmed.tokens.shape == (3, trimmed.lengths.max())
    np.testing.assert_array_equal(full.tokens[:, : trimmed.tokens.shape[1]], trimmed.tokens)


def test_attention_is_returned_per_step_and_zero_after_end():
    model = FakeModel(random_table(3), has_attention=True, source_weight=0.2)
    result = to_numpy(decode(model, SOURCES, "greedy", max_length=6, return_attention=True))
    assert result.attention.shape == (*result.tokens.shape, SOURCES.shape[1])
    for i, source in enumerate(SOURCES):
        n = result.lengths[i]
        _, _, steps = teacher_forced(model, source, [hypothesis(result.tokens[i], n)])
        np.testing.assert_allclose(result.attention[i, :n], np.stack(steps)[:, 0], atol=1e-6)
        assert np.all(result.attention[i, n:] == 0)
    no_attention = decode(FakeModel(random_table(3)), SOURCES, "greedy", return_attention=True)
    assert no_attention.attention is None


def test_rejects_bad_max_length():
    with pytest.raises(ValueError):
        decode(FakeModel(random_table(0)), SOURCES, "greedy", max_length=0)


class CacheLengthRecorder(FakeModel):
    """A FakeModel that records the cache length each decoding asks for."""

    def __init__(self, table):
        super().__init__(table)
        self.cache_lengths = []

    def initial_state(self, memory, max_length):
        self.cache_lengths.append(int(max_length))
        return super().initial_state(memory, max_length)


@pytest.mark.tensorflow  # under JAX the cache is static by design (jax.jit needs concrete shapes)
def test_caches_hold_the_batchs_longest_limit_unless_asked_for_max_length():
    model = CacheLengthRecorder(random_table(5))
    options = dict(max_length=20, max_length_a=1.0, max_length_b=2.0)  # limits 7, 3, 5
    decode(model, SOURCES, "greedy", **options)
    decode(model, SOURCES, "beam", beam_size=2, **options)
    decode(model, SOURCES, "sample", seed=1, **options)
    decode(model, SOURCES[1:], "greedy", **options)
    decode(model, SOURCES[:0], "greedy", **options)  # an empty batch still gets a valid cache
    decode(model, SOURCES, "greedy", batch_cache=False, **options)
    assert model.cache_lengths == [7, 7, 7, 5, 1, 20]
