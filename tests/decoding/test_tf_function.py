"""Every strategy traces into one tf.function with dynamic batch size and source length."""

import numpy as np
import pytest
import tensorflow as tf

from keras_nmt.decoding.loop import decode
from tests.decoding.fake_models import FakeModel, random_table
from tests.decoding.helpers import to_numpy

pytestmark = pytest.mark.tensorflow

STRATEGIES = [
    ("greedy", dict(return_attention=True)),
    ("beam", dict(beam_size=3, n_best=2, coverage_penalty=0.2, return_attention=True)),
    ("beam", dict(beam_size=2, normalization="average")),
    ("sample", dict(seed=11, temperature=0.8, top_k=3, top_p=0.9, return_attention=True)),
]


@pytest.mark.parametrize(("strategy", "options"), STRATEGIES)
def test_traced_with_dynamic_shapes_equals_eager(strategy, options):
    model = FakeModel(random_table(40), has_attention=True, source_weight=0.3, prev_weight=0.2)
    traces = []

    @tf.function(input_signature=[tf.TensorSpec([None, None], tf.int32)])
    def translate(encoder_tokens):
        traces.append(1)
        return decode(model, encoder_tokens, strategy, max_length=7, **options)

    inputs = [
        np.array([[4, 5, 6, 7, 4], [7, 0, 0, 0, 0], [5, 5, 6, 0, 0]], np.int32),
        np.array([[6, 4]], np.int32),
        np.array([[5, 6, 7], [4, 0, 0]], np.int32),
    ]
    for encoder_tokens in inputs:
        traced = to_numpy(translate(tf.constant(encoder_tokens)))
        eager = to_numpy(decode(model, encoder_tokens, strategy, max_length=7, **options))
        for got, want in zip(traced, eager, strict=True):
            if want is None:
                assert got is None
            else:
                np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    assert len(traces) == 1
    # The loop is a graph while-loop, not a python unrolling.
    graph = translate.get_concrete_function().graph
    assert any(op.type in ("While", "StatelessWhile") for op in graph.get_operations())


def test_beam_search_takes_the_length_penalty_as_a_tensor():
    model = FakeModel(random_table(41), source_weight=0.3, prev_weight=0.2)
    sources = np.array([[4, 5, 6, 7, 4], [7, 0, 0, 0, 0]], np.int32)

    @tf.function(input_signature=[tf.TensorSpec([None, None], tf.int32),
                                  tf.TensorSpec([], tf.float32)])
    def translate(encoder_tokens, alpha):
        return decode(model, encoder_tokens, "beam", beam_size=3, length_penalty=alpha,
                      max_length=7)

    for alpha in (0.0, 0.6, 1.5):
        traced = to_numpy(translate(tf.constant(sources), tf.constant(alpha)))
        eager = to_numpy(decode(model, sources, "beam", beam_size=3, length_penalty=alpha,
                                max_length=7))
        np.testing.assert_array_equal(traced.tokens, eager.tokens)
        np.testing.assert_allclose(traced.scores, eager.scores, rtol=1e-5)
