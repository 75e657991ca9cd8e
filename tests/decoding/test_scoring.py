import numpy as np
import pytest
from keras import ops

from keras_nmt.decoding.scoring import (
    coverage_penalty,
    gnmt_length_penalty,
    length_normalizer,
    normalize_log_probs,
)


def test_gnmt_length_penalty_by_hand():
    lp = ops.convert_to_numpy(gnmt_length_penalty(np.array([1, 3, 7]), 0.6))
    np.testing.assert_allclose(lp, [1.0, (8 / 6) ** 0.6, 2.0**0.6], rtol=1e-6)
    np.testing.assert_allclose(ops.convert_to_numpy(gnmt_length_penalty(np.array([4]), 0.0)),
                               [1.0])


def test_normalizations_by_hand():
    log_probs = np.array([-2.0, -6.0], np.float32)
    lengths = np.array([2, 4])
    none = ops.convert_to_numpy(normalize_log_probs(log_probs, lengths, "none"))
    average = ops.convert_to_numpy(normalize_log_probs(log_probs, lengths, "average"))
    gnmt = ops.convert_to_numpy(normalize_log_probs(log_probs, lengths, "gnmt", 1.0))
    np.testing.assert_allclose(none, [-2.0, -6.0])
    np.testing.assert_allclose(average, [-1.0, -1.5])
    # lp(2) = 7/6, lp(4) = 9/6 with alpha 1
    np.testing.assert_allclose(gnmt, [-2.0 * 6 / 7, -6.0 * 6 / 9], rtol=1e-6)
    # -inf (an empty slot) stays -inf.
    assert np.isneginf(ops.convert_to_numpy(
        normalize_log_probs(np.array([-np.inf], np.float32), np.array([3]), "gnmt", 0.6)))[0]
    with pytest.raises(ValueError):
        length_normalizer(lengths, "sum")


def test_coverage_penalty_by_hand():
    # Two source tokens and one padding position; coverage above 1 counts as 1.
    coverage = np.array([[0.5, 1.7, 0.3], [0.0, 1.0, 0.9]], np.float32)
    mask = np.array([[True, True, False], [True, True, True]])
    penalty = ops.convert_to_numpy(coverage_penalty(coverage, mask, 0.2))
    expected_0 = 0.2 * (np.log(0.5) + np.log(1.0))
    expected_1 = 0.2 * (np.log(1e-10) + np.log(1.0) + np.log(0.9))
    np.testing.assert_allclose(penalty, [expected_0, expected_1], rtol=1e-5)
