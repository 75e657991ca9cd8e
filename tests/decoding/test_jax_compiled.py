"""Eager decoding under JAX: one compiled function per shape bucket, the eager results."""

import keras
import numpy as np
import pytest

from keras_nmt.decoding import loop
from keras_nmt.decoding.jax_compiled import bucket_size, can_compile, pad_to_bucket
from keras_nmt.decoding.loop import decode
from keras_nmt.models.luong.functional import LuongSeq2SeqFunctional
from tests.decoding.fake_models import FakeModel, random_table
from tests.decoding.helpers import to_numpy

jax_only = pytest.mark.skipif(keras.backend.backend() != "jax", reason="the JAX backend's path")


class CountingModel(FakeModel):
    """A FakeModel counting `encode` calls: one per trace under `jit`, one per eager call."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.encodes = 0

    def encode(self, encoder_tokens):
        self.encodes += 1
        return super().encode(encoder_tokens)


def sources(batch, length, seed=0):
    rng = np.random.default_rng(seed)
    tokens = rng.integers(4, 8, (batch, length)).astype("int32")
    for row in range(1, batch):
        tokens[row, max(1, length - row) :] = 0  # varied right padding
    return tokens


@pytest.fixture
def eager(monkeypatch):
    """`decode` without the compiled path: the loop run as it is called."""

    def run(*args, **kwargs):
        with monkeypatch.context() as patch:
            patch.setattr(loop, "can_compile", lambda *_: False)
            return decode(*args, **kwargs)

    return run


def assert_same(a, b):
    for x, y in zip(to_numpy(a), to_numpy(b), strict=True):
        if x is None:
            assert y is None
        else:
            np.testing.assert_allclose(x, y, rtol=1e-6, atol=1e-6)


def test_bucket_sizes_and_padding():
    assert [bucket_size(n) for n in (1, 8, 9, 16, 17, 100)] == [8, 8, 16, 16, 32, 128]
    tokens = sources(3, 5)
    padded = pad_to_bucket(tokens)
    assert padded.shape == (8, 8)
    np.testing.assert_array_equal(padded[:3, :5], tokens)
    assert (padded[:, 5:] == 0).all()
    np.testing.assert_array_equal(padded[3:, :5], np.repeat(tokens[:1], 5, axis=0))


@jax_only
def test_same_bucket_calls_trace_once_and_give_the_eager_results(eager):
    model = CountingModel(random_table(7), has_attention=True, source_weight=0.3)
    first, second = sources(2, 5, seed=1), sources(3, 7, seed=2)  # both in bucket (8, 8)
    beam = {"beam_size": 3, "n_best": 2, "max_length": 6, "return_attention": True}
    results = [decode(model, ids, "beam", **beam) for ids in (first, second)]
    assert model.encodes == 1
    decode(model, sources(9, 5, seed=3), "beam", **beam)  # a new batch bucket: (16, 8)
    assert model.encodes == 2
    for ids, result in zip((first, second), results, strict=True):
        assert_same(result, eager(model, ids, "beam", **beam))
    greedy = decode(model, second, max_length=6, return_attention=True)
    assert_same(greedy, eager(model, second, "greedy", max_length=6, return_attention=True))
    sampled = decode(model, second, "sample", seed=5, max_length=6)
    assert_same(sampled, eager(model, second, "sample", seed=5, max_length=6))
    ids = np.array([4, 2, 0], np.int32)  # each sentence's index in the input, as given
    sampled = decode(model, second, "sample", seed=5, max_length=6, sentence_ids=ids)
    assert_same(sampled, eager(model, second, "sample", seed=5, max_length=6, sentence_ids=ids))


@jax_only
def test_a_compiled_decode_sees_new_weights(eager):
    keras.utils.set_random_seed(0)
    model = LuongSeq2SeqFunctional(11, 9, embedding_dim=4, units=6)
    ids = sources(2, 4) + 3  # ids 4..10 (pads become 3: END, still a real token here)
    ids[1, 2:] = 0
    decode(model, ids, max_length=5)
    model.set_weights([w + 0.5 for w in model.get_weights()])
    assert_same(decode(model, ids, max_length=5), eager(model, ids, "greedy", max_length=5))


def test_calls_that_stay_eager():
    model = FakeModel(random_table(1))
    ids = sources(2, 3)
    assert not can_compile(model, "sample", ids, {"seed": None})
    assert not can_compile(model, "sample", ids, {"seed": keras.random.SeedGenerator(1)})
    assert can_compile(model, "greedy", ids, {}) == (keras.backend.backend() == "jax")
