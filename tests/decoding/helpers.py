"""Small helpers for the decoding tests."""

import numpy as np
from keras import ops


def to_numpy(result):
    """A DecodeResult's fields as numpy arrays (None stays None)."""
    return type(result)(*(None if x is None else ops.convert_to_numpy(x) for x in result))


def hypothesis(tokens, length):
    """The first ``length`` ids of a token row, as a python list."""
    return [int(x) for x in np.asarray(tokens)[: int(length)]]
