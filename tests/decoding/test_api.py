import json

import numpy as np
import pytest

from keras_nmt.decoding.decoding_options import DecodingOptions
from keras_nmt.decoding.loop import decode
from tests.decoding.fake_models import FakeModel, random_table
from tests.decoding.helpers import to_numpy

SOURCES = np.array([[4, 5, 6, 7, 4], [7, 0, 0, 0, 0]], dtype=np.int32)


def assert_same(a, b):
    for x, y in zip(to_numpy(a), to_numpy(b), strict=True):
        if x is None:
            assert y is None
        else:
            np.testing.assert_array_equal(x, y)


def test_decode_runs_each_strategy_by_name_and_by_its_options():
    model = FakeModel(random_table(30), has_attention=True, source_weight=0.2)
    for name, options in (("greedy", {}), ("beam", {"beam_size": 3, "n_best": 3}),
                          ("sample", {"seed": 4, "top_p": 0.9})):
        by_name = decode(model, SOURCES, name, max_length=6, return_attention=True, **options)
        by_options = decode(model, SOURCES, DecodingOptions(
            strategy=name, max_length=6, return_attention=True, **options))
        assert_same(by_name, by_options)
        assert to_numpy(by_name).tokens.ndim == (3 if name == "beam" else 2)
    assert_same(decode(model, SOURCES, max_length=6), decode(model, SOURCES, "greedy",
                                                             max_length=6))


def test_decoding_config_round_trip_and_overrides():
    model = FakeModel(random_table(31))
    config = DecodingOptions(strategy="beam", beam_size=3, n_best=2, normalization="average",
                            max_length=5)
    restored = DecodingOptions(**json.loads(json.dumps(config.to_dict())))
    assert restored == config
    assert set(config.options()) == {
        "max_length", "max_length_a", "max_length_b", "return_attention", "trim",
        "batch_cache", "beam_size", "n_best", "normalization", "length_penalty", "coverage_penalty",
    }
    assert_same(decode(model, SOURCES, config),
                decode(model, SOURCES, "beam", beam_size=3, n_best=2, normalization="average",
                       max_length=5))
    # Keyword options override the config's fields; options of other strategies are ignored.
    assert_same(decode(model, SOURCES, config, max_length=3),
                decode(model, SOURCES, "beam", beam_size=3, n_best=2, normalization="average",
                       max_length=3))
    assert_same(decode(model, SOURCES, config.replace(strategy="greedy")),
                decode(model, SOURCES, "greedy", max_length=5))


def test_bad_strategy_and_foreign_options_raise():
    model = FakeModel(random_table(32))
    with pytest.raises(ValueError):
        decode(model, SOURCES, "topk")
    with pytest.raises(TypeError):
        decode(model, SOURCES, "greedy", beam_size=3)
    with pytest.raises(ValueError):
        DecodingOptions(strategy="nucleus")


@pytest.mark.parametrize("strategy, options", [
    ("greedy", {}), ("beam", {"beam_size": 2}), ("sample", {"seed": 1}),
])
def test_default_max_length_stays_within_the_models_own(strategy, options):
    model = FakeModel(random_table(32))
    model.max_length = 7  # like a Transformer's table of 7 positions
    long_limits = {"max_length_a": 0.0, "max_length_b": 50.0}
    default = decode(model, SOURCES, strategy, **long_limits, **options)
    assert_same(default, decode(model, SOURCES, strategy, max_length=7, **long_limits, **options))
    capped = decode(model, SOURCES, strategy, trim=False, **long_limits, **options)
    assert to_numpy(capped).tokens.shape[-1] == 7
    with pytest.raises(ValueError, match="exceeds the model's max_length 7"):
        decode(model, SOURCES, strategy, max_length=8, **options)
    del model.max_length
    assert DecodingOptions().max_length is None
    unlimited = decode(model, SOURCES, strategy, trim=False, **long_limits, **options)
    assert to_numpy(unlimited).tokens.shape[-1] == 100  # buffers sized to the default cap
