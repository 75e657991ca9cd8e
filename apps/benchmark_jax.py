"""`python apps/benchmark_jax.py ...` runs keras_nmt/cli/benchmark_jax.py (JAX backend only)."""

import sys

from keras_nmt.cli.benchmark_jax import main

if __name__ == "__main__":
    sys.exit(main())
