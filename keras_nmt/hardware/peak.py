"""The machine's peak matmul rate, measured: the denominator of model FLOPs utilization (MFU).

Backend-neutral (`keras.ops` in a compiled function of the current backend), so it needs no
TensorFlow under JAX.
"""

import keras
import numpy as np
from keras import ops

from keras_nmt.hardware.timing import median, time_repeats


def compile_function(function):
    """`function` compiled by the current Keras backend: `tf.function` or `jax.jit`."""
    # Function-local imports: only the running backend's framework is installed everywhere.
    if keras.backend.backend() == "jax":
        import jax

        return jax.jit(function)
    import tensorflow as tf

    return tf.function(function)


def measure_peak_matmul(dtype="float32", size=2048, repeats=5, chain=1):
    """FLOP/s of `size x size` by `size x size` matmuls in `dtype` (median of repeats).

    One matmul is `2 * size**3` FLOPs (a multiply and an add per term). The call runs compiled
    (`compile_function`) and the result is reduced to a scalar read back to the host, so each
    timing covers the whole product (the reduction costs `size**2`, under 0.1% of the product).
    On a GPU, `chain` > 1 multiplies by `b` that many times in one call (each product rescaled,
    so bfloat16 stays finite), hiding the per-call launch and read-back time.

    Args:
        dtype: `"float32"`, `"bfloat16"` or `"float16"`.
        size: the matrix side.
        repeats: timed calls (one untimed warm-up call comes first).
        chain: matmuls per call.

    Returns:
        A dict: `flops_per_second` (median), `best_flops_per_second`, `seconds` (median, per
        call), `dtype`, `size`, `repeats`, `chain`.
    """
    rng = np.random.default_rng(0)
    a = ops.cast(rng.standard_normal((size, size), dtype=np.float32), dtype)
    b = ops.cast(rng.standard_normal((size, size), dtype=np.float32) / np.sqrt(size), dtype)

    def product(a, b):
        x = a
        for _ in range(chain):
            x = ops.matmul(x, b)
        return ops.sum(ops.cast(x, "float32"))

    compiled = compile_function(product)
    durations = time_repeats(
        lambda: ops.convert_to_numpy(compiled(a, b)), repeats=repeats, warmup=1
    )
    flops = 2.0 * size**3 * chain
    return {
        "dtype": dtype,
        "size": size,
        "repeats": repeats,
        "chain": chain,
        "seconds": median(durations),
        "flops_per_second": flops / median(durations),
        "best_flops_per_second": flops / min(durations),
    }
