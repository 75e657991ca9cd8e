import keras
import numpy as np
import pytest

from keras_nmt.decoding.loop import decode
from keras_nmt.decoding.sampling import filter_top_k, filter_top_p, uniforms
from keras_nmt.special_ids import END_ID
from tests.decoding.fake_models import FakeModel, random_table, table_from_rows, teacher_forced
from tests.decoding.helpers import hypothesis, to_numpy

SOURCES = np.array([[4, 5, 6, 7, 4], [7, 0, 0, 0, 0], [5, 5, 6, 0, 0]], dtype=np.int32)
OPTIONS = dict(max_length=8, max_length_a=1.0, max_length_b=2.0)
FIRST = {4: 0.5, 5: 0.3, 6: 0.1, 7: 0.05, END_ID: 0.05}


def flat_model():
    return FakeModel(random_table(20, sharpness=0.5), source_weight=0.2, prev_weight=0.2)


def first_token_frequencies(n=4000, **options):
    """Frequencies of the first sampled token of n copies of one sentence."""
    model = FakeModel(table_from_rows({(): FIRST}))
    sources = np.tile(SOURCES[:1], (n, 1))
    result = to_numpy(decode(model, sources, "sample", max_length=1, seed=3, **options))
    return np.bincount(result.tokens[:, 0], minlength=8) / n


def test_fixed_seed_repeats_and_other_seed_differs():
    model = flat_model()
    first = to_numpy(decode(model, SOURCES, "sample", seed=7, **OPTIONS))
    again = to_numpy(decode(model, SOURCES, "sample", seed=7, **OPTIONS))
    other = to_numpy(decode(model, SOURCES, "sample", seed=8, **OPTIONS))
    np.testing.assert_array_equal(first.tokens, again.tokens)
    np.testing.assert_array_equal(first.scores, again.scores)
    assert not np.array_equal(first.tokens, other.tokens)


def test_a_sentences_sample_depends_on_its_index_not_on_its_batch():
    model = flat_model()
    sources = np.concatenate([SOURCES, SOURCES[::-1], SOURCES[:1]])  # 7 sentences
    ids = np.array([3, 9, 4, 0, 8, 1, 12], np.int32)
    options = dict(seed=5, temperature=1.5, **OPTIONS)
    batch = to_numpy(decode(model, sources, "sample", sentence_ids=ids, **options))
    for i in range(len(sources)):
        alone = to_numpy(decode(model, sources[i : i + 1], "sample", sentence_ids=ids[i : i + 1],
                                       **options))
        assert hypothesis(alone.tokens[0], alone.lengths[0]) == \
            hypothesis(batch.tokens[i], batch.lengths[i])
    # In another order and other batches, through `decode`: the same samples.
    order = np.array([6, 2, 0, 5, 1, 3, 4])
    for part in (order[:3], order[3:]):
        other = to_numpy(decode(model, sources[part], "sample", sentence_ids=ids[part],
                                **options))
        for row, i in enumerate(part):
            assert hypothesis(other.tokens[row], other.lengths[row]) == \
                hypothesis(batch.tokens[i], batch.lengths[i])
    # Without ids the rows are 0, 1, ...: a sentence's sample moves with its index.
    default = to_numpy(decode(model, sources, "sample", **options))
    by_position = to_numpy(decode(model, sources, "sample", sentence_ids=np.arange(7), **options))
    np.testing.assert_array_equal(default.tokens, by_position.tokens)


def test_copies_of_one_sentence_are_draws_of_their_own():
    model = flat_model()
    copies = np.tile(SOURCES[:1], (8, 1))
    result = to_numpy(decode(model, copies, "sample", seed=0, temperature=2.0, **OPTIONS))
    samples = [tuple(hypothesis(t, n)) for t, n in zip(result.tokens, result.lengths,
                                                         strict=True)]
    assert len(set(samples)) >= 6  # 8 draws of a flat distribution over 5 tokens and 3 steps


def test_uniforms_are_a_function_of_seed_sentence_and_step():
    numbers = lambda *args: keras.ops.convert_to_numpy(uniforms(*args))  # noqa: E731
    sentences = np.arange(20000, dtype=np.int32)
    u = numbers(0, sentences, 0)
    assert u.dtype == np.float32 and 0.0 <= u.min() and u.max() < 1.0
    # Uniform: each tenth of [0, 1) holds a tenth of them (4 standard deviations: 0.0085).
    np.testing.assert_allclose(np.histogram(u, bins=10, range=(0, 1))[0] / len(u), 0.1,
                               atol=0.0085)
    np.testing.assert_array_equal(numbers(0, sentences[::-1], 0), u[::-1])  # by key alone
    for other in (numbers(1, sentences, 0), numbers(0, sentences + 1, 0),
                  numbers(0, sentences, 1)):
        assert abs(np.corrcoef(u, other)[0, 1]) < 0.05  # seed, sentence and step each matter


def test_seed_generator_gives_new_samples_each_call_and_repeats_from_same_start():
    model = flat_model()
    generator = keras.random.SeedGenerator(5)
    a = to_numpy(decode(model, SOURCES, "sample", seed=generator, **OPTIONS))
    b = to_numpy(decode(model, SOURCES, "sample", seed=generator, **OPTIONS))
    assert not np.array_equal(a.tokens, b.tokens)
    c = to_numpy(decode(model, SOURCES, "sample", seed=keras.random.SeedGenerator(5), **OPTIONS))
    np.testing.assert_array_equal(a.tokens, c.tokens)


@pytest.mark.parametrize(
    "options",
    [dict(temperature=1e-6), dict(temperature=0.0), dict(top_k=1), dict(top_p=1e-6),
     dict(temperature=0.7, top_k=1, top_p=0.5),
     # In float32 the logits divided by these overflow (2e-38), lose the temperature's
     # precision (1e-40) or divide by 0 (1e-300): all gave NaN, then padding or nothing.
     dict(temperature=2e-38), dict(temperature=1e-40), dict(temperature=1e-300)],
)
def test_degenerate_sampling_is_greedy(options):
    # Logits as a model's own, not log-probabilities: positive, so that over a tiny temperature
    # they overflow to inf.
    model = FakeModel(random_table(21) + 10.0, source_weight=0.4, prev_weight=0.3)
    greedy = to_numpy(decode(model, SOURCES, "greedy", **OPTIONS))
    sampled = to_numpy(decode(model, SOURCES, "sample", seed=1, **options, **OPTIONS))
    np.testing.assert_array_equal(sampled.tokens, greedy.tokens)
    np.testing.assert_array_equal(sampled.lengths, greedy.lengths)
    np.testing.assert_allclose(sampled.scores, greedy.scores, rtol=1e-6)


def test_scores_are_the_models_log_probs_of_the_samples():
    model = flat_model()
    result = to_numpy(decode(model, SOURCES, "sample", seed=2, temperature=1.5, top_k=3,
                                    **OPTIONS))
    for i, source in enumerate(SOURCES):
        h = hypothesis(result.tokens[i], result.lengths[i])
        recomputed, _, _ = teacher_forced(model, source, [h])
        np.testing.assert_allclose(result.scores[i], recomputed[0], rtol=1e-5)
        np.testing.assert_allclose(result.log_probs[i], recomputed[0], rtol=1e-5)


def test_sample_frequencies_follow_the_filtered_distribution():
    p = np.zeros(8)
    for token, value in FIRST.items():
        p[token] = value
    np.testing.assert_allclose(first_token_frequencies(), p, atol=0.03)
    # top-k 2: tokens 4 and 5 renormalized.
    np.testing.assert_allclose(first_token_frequencies(top_k=2)[[4, 5]], [0.625, 0.375],
                               atol=0.03)
    assert first_token_frequencies(top_k=2)[[3, 6, 7]].sum() == 0
    # top-p 0.7: 4 (mass before 0) and 5 (mass before 0.5) kept, 6 (mass before 0.8) not.
    np.testing.assert_allclose(first_token_frequencies(top_p=0.7)[[4, 5]], [0.625, 0.375],
                               atol=0.03)
    # temperature 2: p ** (1/2), renormalized.
    hot = np.sqrt(p) / np.sqrt(p).sum()
    np.testing.assert_allclose(first_token_frequencies(temperature=2.0), hot, atol=0.03)


def test_filter_top_k_and_top_p_by_hand():
    logits = np.log(np.array([[0.1, 0.4, 0.2, 0.3], [0.25, 0.25, 0.25, 0.25]], np.float32))
    top2 = keras.ops.convert_to_numpy(filter_top_k(logits, 2))
    assert np.isneginf(top2[0, [0, 2]]).all() and np.isfinite(top2[0, [1, 3]]).all()
    assert np.isfinite(top2[1]).all()  # ties with the k-th value are kept
    nucleus = keras.ops.convert_to_numpy(filter_top_p(logits, 0.6))
    # row 0 sorted: 0.4, 0.3 (mass before 0.4 < 0.6), 0.2 (mass before 0.7): keep 0.4 and 0.3
    np.testing.assert_array_equal(np.isfinite(nucleus[0]), [False, True, False, True])
    np.testing.assert_allclose(nucleus[0, [1, 3]], logits[0, [1, 3]])
    assert np.isfinite(keras.ops.convert_to_numpy(filter_top_p(logits, 1.0))).all()


@pytest.mark.parametrize(
    "options", [dict(temperature=-1.0), dict(top_k=0), dict(top_p=0.0), dict(top_p=1.5)]
)
def test_rejects_bad_options(options):
    with pytest.raises(ValueError):
        decode(flat_model(), SOURCES, "sample", **options)
