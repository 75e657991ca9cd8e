"""`python apps/benchmark_jax.py ...` is `keras-nmt benchmark --backend jax ...` (no TensorFlow)."""

import sys

from keras_nmt.workshop.cli import run

if __name__ == "__main__":
    sys.argv[1:1] = ["benchmark", "--backend", "jax"]
    run()
