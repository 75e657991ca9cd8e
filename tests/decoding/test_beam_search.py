import numpy as np
import pytest

from keras_nmt.decoding.loop import decode
from keras_nmt.decoding.scoring import COVERAGE_EPSILON
from keras_nmt.special_ids import END_ID
from tests.decoding.fake_models import (
    FakeModel,
    all_sentences,
    next_log_probs,
    random_table,
    table_from_rows,
    teacher_forced,
)
from tests.decoding.helpers import hypothesis, to_numpy

SOURCES = np.array([[4, 5, 6, 7, 4], [7, 0, 0, 0, 0], [5, 5, 6, 0, 0]], dtype=np.int32)


def gnmt_lp(length, alpha):
    return ((5.0 + length) / 6.0) ** alpha


def normalized(log_prob, length, normalization, alpha=0.6):
    if normalization == "none":
        return log_prob
    if normalization == "average":
        return log_prob / length
    return log_prob / gnmt_lp(length, alpha)


def exhaustive(model, source, max_length, normalization, alpha=0.6):
    """Every complete sentence with its score, best first."""
    sentences = all_sentences(max_length)
    log_probs, _, _ = teacher_forced(model, source, sentences)
    scored = [
        (normalized(lp, len(s), normalization, alpha), lp, s)
        for lp, s in zip(log_probs, sentences, strict=True)
    ]
    return sorted(scored, key=lambda x: -x[0])


# "He hit me with a pie": the most probable first word (4) leads to a worse sentence.
PIE_TABLE = table_from_rows(
    {
        (): {4: 0.45, 5: 0.40, 6: 0.05, 7: 0.05, END_ID: 0.05},
        (4,): {END_ID: 0.22, 4: 0.195, 5: 0.195, 6: 0.195, 7: 0.195},
        (5,): {6: 0.9, END_ID: 0.025, 4: 0.025, 5: 0.025, 7: 0.025},
        (5, 6): {END_ID: 0.9, 4: 0.025, 5: 0.025, 6: 0.025, 7: 0.025},
    }
)


@pytest.mark.parametrize("beam_size", [2, 3])
def test_beam_finds_the_most_probable_sentence_where_greedy_fails(beam_size):
    model = FakeModel(PIE_TABLE)
    source = SOURCES[:1]
    options = dict(max_length=4, max_length_a=0.0, max_length_b=4.0)
    best_score, _, best_sentence = exhaustive(model, source[0], 4, "none")[0]
    assert best_sentence == [5, 6, END_ID]
    np.testing.assert_allclose(best_score, np.log(0.4 * 0.9 * 0.9), rtol=1e-5)

    greedy = to_numpy(decode(model, source, "greedy", **options))
    assert hypothesis(greedy.tokens[0], greedy.lengths[0]) == [4, END_ID]
    np.testing.assert_allclose(greedy.scores[0], np.log(0.45 * 0.22), rtol=1e-5)

    beam = to_numpy(decode(model, source, "beam", beam_size=beam_size, normalization="none",
                                **options))
    assert hypothesis(beam.tokens[0, 0], beam.lengths[0, 0]) == best_sentence
    np.testing.assert_allclose(beam.scores[0, 0], best_score, rtol=1e-5)
    np.testing.assert_allclose(beam.log_probs[0, 0], best_score, rtol=1e-5)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_beam_size_one_is_greedy(seed):
    model = FakeModel(random_table(seed), source_weight=0.4, prev_weight=0.3)
    options = dict(max_length=8, max_length_a=1.0, max_length_b=2.0)
    greedy = to_numpy(decode(model, SOURCES, "greedy", **options))
    beam = to_numpy(decode(model, SOURCES, "beam", beam_size=1, normalization="none", **options))
    assert beam.tokens.shape == (3, 1, greedy.tokens.shape[1])
    np.testing.assert_array_equal(beam.tokens[:, 0], greedy.tokens)
    np.testing.assert_array_equal(beam.lengths[:, 0], greedy.lengths)
    np.testing.assert_allclose(beam.scores[:, 0], greedy.scores, rtol=1e-6)
    np.testing.assert_allclose(beam.log_probs[:, 0], greedy.log_probs, rtol=1e-6)
    # GNMT with alpha = 0 is no normalization.
    gnmt = to_numpy(decode(model, SOURCES, "beam", beam_size=1, normalization="gnmt",
                                length_penalty=0.0, **options))
    np.testing.assert_array_equal(gnmt.tokens[:, 0], greedy.tokens)


# After 4, END is the most probable token, but 4 5 END has the better GNMT score (alpha 0.6).
BEAM_ONE_TABLE = table_from_rows(
    {(): {4: 1.0}, (4,): {END_ID: 0.51, 5: 0.49}, (4, 5): {END_ID: 1.0}}
)


def test_beam_size_one_with_length_normalization_goes_past_greedys_end():
    model = FakeModel(BEAM_ONE_TABLE)
    source = SOURCES[:1]
    options = dict(max_length=4, max_length_a=0.0, max_length_b=4.0)
    greedy = to_numpy(decode(model, source, "greedy", **options))
    assert hypothesis(greedy.tokens[0], greedy.lengths[0]) == [4, END_ID]
    plain = to_numpy(decode(model, source, "beam", beam_size=1, normalization="none", **options))
    assert hypothesis(plain.tokens[0, 0], plain.lengths[0, 0]) == [4, END_ID]
    np.testing.assert_allclose(plain.scores[0, 0], greedy.scores[0], rtol=1e-6)

    gnmt = to_numpy(decode(model, source, "beam", beam_size=1, normalization="gnmt",
                                length_penalty=0.6, **options))
    assert hypothesis(gnmt.tokens[0, 0], gnmt.lengths[0, 0]) == [4, 5, END_ID]
    np.testing.assert_allclose(gnmt.scores[0, 0], np.log(0.49) / gnmt_lp(3, 0.6), rtol=1e-5)
    # Greedy's hypothesis scores worse under the same normalization.
    assert gnmt.scores[0, 0] > np.log(0.51) / gnmt_lp(2, 0.6)


@pytest.mark.parametrize("normalization", ["none", "average", "gnmt"])
def test_wide_beam_equals_exhaustive_search(normalization):
    # 5 * 4**3 = 320 candidates at the last step fit in the beam: the search is exhaustive.
    model = FakeModel(random_table(5, sharpness=1.0), source_weight=0.5, prev_weight=0.2)
    sources = SOURCES[:2]
    result = to_numpy(decode(model, sources, "beam", beam_size=400, n_best=10,
                                  normalization=normalization, length_penalty=0.6,
                                  max_length=4, max_length_a=0.0, max_length_b=4.0))
    for i, source in enumerate(sources):
        expected = exhaustive(model, source, 4, normalization)[:10]
        got = [hypothesis(result.tokens[i, j], result.lengths[i, j]) for j in range(10)]
        assert got == [s for _, _, s in expected]
        np.testing.assert_allclose(result.scores[i], [s for s, _, _ in expected], rtol=1e-5)
        np.testing.assert_allclose(result.log_probs[i], [lp for _, lp, _ in expected],
                                   rtol=1e-5)


def test_scores_equal_teacher_forced_log_probs_with_gnmt_and_coverage():
    model = FakeModel(random_table(7), has_attention=True, source_weight=0.3, prev_weight=0.2)
    alpha, beta = 0.6, 0.3
    result = to_numpy(decode(model, SOURCES, "beam", beam_size=3, normalization="gnmt",
                                  length_penalty=alpha, coverage_penalty=beta, max_length=6,
                                  return_attention=True))
    for i, source in enumerate(SOURCES):
        hyps = [hypothesis(result.tokens[i, j], result.lengths[i, j]) for j in range(3)]
        log_probs, coverage, _ = teacher_forced(model, source, hyps)
        np.testing.assert_allclose(result.log_probs[i], log_probs, rtol=1e-5)
        mask = source != 0
        cp = beta * np.sum(np.log(np.clip(coverage, COVERAGE_EPSILON, 1.0)) * mask, axis=1)
        lengths = np.array([len(h) for h in hyps])
        expected = log_probs / gnmt_lp(lengths, alpha) + cp
        np.testing.assert_allclose(result.scores[i], expected, rtol=1e-5)
        # The returned attention sums to the coverage the scores used.
        np.testing.assert_allclose(result.attention[i].sum(axis=1), coverage, atol=1e-5)


def reference_beam(model, source, beam_size, n_best, limit, normalization, alpha=0.6):
    """Python beam search with the same step rule, run to the limit (no early stopping)."""
    alive, finished = [([], 0.0)], []
    for _ in range(limit):
        log_probs = next_log_probs(model, source, [p for p, _ in alive])
        candidates = [
            (score + log_probs[i, v], prefix + [v])
            for i, (prefix, score) in enumerate(alive)
            for v in range(log_probs.shape[1])
            if np.isfinite(log_probs[i, v])
        ]
        candidates.sort(key=lambda c: -c[0])
        for lp, h in candidates[:beam_size]:
            if h[-1] == END_ID:
                finished.append((normalized(lp, len(h), normalization, alpha), lp, h))
        alive = [(h, lp) for lp, h in candidates if h[-1] != END_ID][:beam_size]
    finished.sort(key=lambda f: -f[0])
    live = sorted(((normalized(lp, len(h), normalization, alpha), lp, h) for h, lp in alive),
                  key=lambda f: -f[0])
    return (finished + live)[:n_best]


@pytest.mark.parametrize("normalization", ["none", "average", "gnmt"])
@pytest.mark.parametrize("seed", [12, 13, 14])
def test_early_stopping_never_changes_the_n_best(normalization, seed):
    # The early-stopped search returns what the same search run to the limit returns.
    model = FakeModel(random_table(seed, sharpness=2.5, end_bias=1.0), source_weight=0.3,
                      prev_weight=0.3)
    result = to_numpy(decode(model, SOURCES, "beam", beam_size=3, normalization=normalization,
                                  length_penalty=1.0, max_length=6, max_length_a=0.0,
                                  max_length_b=6.0))
    if normalization != "average" and seed == 13:
        assert model.calls < 6  # it did stop early
    for i, source in enumerate(SOURCES):
        expected = reference_beam(model, source, 3, 3, 6, normalization, alpha=1.0)
        got = [hypothesis(result.tokens[i, j], result.lengths[i, j]) for j in range(3)]
        assert got == [h for _, _, h in expected]
        np.testing.assert_allclose(result.scores[i], [s for s, _, _ in expected], rtol=1e-5)


def test_average_normalization_scores_are_mean_log_probs():
    model = FakeModel(random_table(8), source_weight=0.3)
    result = to_numpy(decode(model, SOURCES, "beam", beam_size=3, normalization="average",
                                  max_length=6))
    for i, source in enumerate(SOURCES):
        hyps = [hypothesis(result.tokens[i, j], result.lengths[i, j]) for j in range(3)]
        log_probs, _, _ = teacher_forced(model, source, hyps)
        np.testing.assert_allclose(result.scores[i], log_probs / result.lengths[i], rtol=1e-5)


@pytest.mark.parametrize("has_attention", [False, True])
def test_sentence_alone_equals_sentence_in_padded_batch(has_attention):
    model = FakeModel(random_table(9), has_attention=has_attention, source_weight=0.6,
                      prev_weight=0.2)
    options = dict(beam_size=3, max_length=7, max_length_a=1.0, max_length_b=1.0,
                   return_attention=True, coverage_penalty=0.2 if has_attention else 0.0)
    batched = to_numpy(decode(model, SOURCES, "beam", **options))
    greedy_batched = to_numpy(decode(model, SOURCES, "greedy", max_length=7, max_length_a=1.0,
                                            max_length_b=1.0, return_attention=True))
    for i, source in enumerate(SOURCES):
        n = int((source != 0).sum())
        alone = to_numpy(decode(model, source[None, :n], "beam", **options))
        np.testing.assert_array_equal(alone.lengths[0], batched.lengths[i])
        np.testing.assert_allclose(alone.scores[0], batched.scores[i], rtol=1e-5)
        for j in range(3):
            length = alone.lengths[0, j]
            assert hypothesis(alone.tokens[0, j], length) == hypothesis(
                batched.tokens[i, j], length)
            if has_attention:
                np.testing.assert_allclose(alone.attention[0, j, :length],
                                           batched.attention[i, j, :length, :n], atol=1e-6)
                assert np.all(batched.attention[i, j, :, n:] < 1e-6)
        greedy_alone = to_numpy(decode(model, source[None, :n], "greedy", max_length=7,
                                              max_length_a=1.0, max_length_b=1.0))
        length = greedy_alone.lengths[0]
        assert length == greedy_batched.lengths[i]
        assert hypothesis(greedy_alone.tokens[0], length) == hypothesis(
            greedy_batched.tokens[i], length)
        np.testing.assert_allclose(greedy_alone.scores[0], greedy_batched.scores[i], rtol=1e-5)


def test_n_best_sorted_distinct_and_within_length_limits():
    model = FakeModel(random_table(10, sharpness=1.0), source_weight=0.3, prev_weight=0.3)
    result = to_numpy(decode(model, SOURCES, "beam", beam_size=4, n_best=4, normalization="gnmt",
                                  max_length=6, max_length_a=1.0, max_length_b=0.0))
    limits = np.minimum(6, (SOURCES != 0).sum(axis=1))  # ceil(1.0 * n + 0)
    for i in range(len(SOURCES)):
        hyps = [hypothesis(result.tokens[i, j], result.lengths[i, j]) for j in range(4)]
        assert len({tuple(h) for h in hyps}) == 4
        assert np.all(np.isfinite(result.scores[i]))
        for j, h in enumerate(hyps):
            assert 1 <= len(h) <= limits[i]
            assert np.all(result.tokens[i, j, len(h):] == 0)
            assert END_ID not in h[:-1]
            if h[-1] != END_ID:
                assert len(h) == limits[i]  # unfinished only when stopped by the limit
        finished = [h[-1] == END_ID for h in hyps]
        # Finished hypotheses come first, each group sorted best first.
        assert finished == sorted(finished, reverse=True)
        for group in (True, False):
            scores = [s for s, f in zip(result.scores[i], finished, strict=True) if f == group]
            assert scores == sorted(scores, reverse=True)


def test_returns_live_hypotheses_when_none_finished():
    # END is impossible: every hypothesis stops at the limit (2 tokens), without END.
    default = {4: 0.4, 5: 0.3, 6: 0.2, 7: 0.1}
    table = table_from_rows({(4,): {4: 0.1, 5: 0.2, 6: 0.3, 7: 0.4}}, default=default)
    model = FakeModel(table)
    result = to_numpy(decode(model, SOURCES[:1], "beam", beam_size=3, normalization="average",
                                  max_length=2, max_length_a=0.0, max_length_b=2.0))
    got = [hypothesis(result.tokens[0, j], result.lengths[0, j]) for j in range(3)]
    # Candidates: 4-7 = .16, 5-4 = .12, 4-6 = .12, 5-5 = .09 ... with ties broken by beam order.
    assert got[0] == [4, 7]
    assert {tuple(g) for g in got[1:]} == {(5, 4), (4, 6)}
    np.testing.assert_array_equal(result.lengths[0], [2, 2, 2])
    np.testing.assert_allclose(result.log_probs[0], np.log([0.16, 0.12, 0.12]), rtol=1e-5)
    np.testing.assert_allclose(result.scores[0], np.log([0.16, 0.12, 0.12]) / 2, rtol=1e-5)


@pytest.mark.tensorflow  # counts the steps eager TensorFlow runs (JAX traces the body once)
def test_stops_early_when_no_live_hypothesis_can_win():
    # END has probability 0.9 after every prefix: with normalization "none" the buffer of 2 is
    # full after 2 steps and no live hypothesis can beat it.
    default = {END_ID: 0.9, 4: 0.025, 5: 0.025, 6: 0.025, 7: 0.025}
    model = FakeModel(table_from_rows({}, default=default))
    result = to_numpy(decode(model, SOURCES[:1], "beam", beam_size=2, normalization="none",
                                  max_length=20, max_length_a=0.0, max_length_b=20.0))
    assert model.calls == 2  # eager TensorFlow runs the loop body once per step
    assert hypothesis(result.tokens[0, 0], result.lengths[0, 0]) == [END_ID]
    np.testing.assert_allclose(result.scores[0], np.log([0.9, 0.025 * 0.9]), rtol=1e-5)
    # The average normalization bound (s / limit) is loose: it searches longer, same winner.
    model.calls = 0
    average = to_numpy(decode(model, SOURCES[:1], "beam", beam_size=2, normalization="average",
                                   max_length=20, max_length_a=0.0, max_length_b=20.0))
    assert 2 < model.calls <= 20
    assert hypothesis(average.tokens[0, 0], average.lengths[0, 0]) == [END_ID]


def test_best_gives_single_hypothesis_shapes():
    model = FakeModel(random_table(11), has_attention=True)
    result = decode(model, SOURCES, "beam", beam_size=3, n_best=2, max_length=5,
                         return_attention=True)
    best = to_numpy(result.best())
    full = to_numpy(result)
    assert result.is_n_best and not result.best().is_n_best
    np.testing.assert_array_equal(best.tokens, full.tokens[:, 0])
    np.testing.assert_array_equal(best.scores, full.scores[:, 0])
    assert best.attention.shape == full.attention[:, 0].shape


@pytest.mark.parametrize(
    "options",
    [dict(beam_size=0), dict(beam_size=2, n_best=3), dict(normalization="length"),
     dict(normalization="gnmt", length_penalty=-1.0), dict(coverage_penalty=-0.1)],
)
def test_rejects_bad_options(options):
    with pytest.raises(ValueError):
        decode(FakeModel(random_table(0)), SOURCES, "beam", **options)
