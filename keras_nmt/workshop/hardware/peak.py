"""The machine's matmul rates, measured: the peak (the MFU denominator), bf16 against float32.

Backend-neutral (`keras.ops` in a compiled function of the current backend), so it needs no
TensorFlow under JAX.
"""

import statistics

import keras
import numpy as np
from keras import ops

from keras_nmt.workshop.timing import time_call


def compile_function(function):
    """`function` compiled by the current Keras backend: `tf.function` or `jax.jit`."""
    # Function-local imports: only the running backend's framework is installed everywhere.
    if keras.backend.backend() == "jax":
        import jax

        return jax.jit(function)
    import tensorflow as tf

    return tf.function(function)


def measure_peak_matmul(dtype="float32", size=2048, repeats=5, chain=1):
    """FLOP/s of `size x size` by `size x size` matmuls in `dtype` (median of `repeats` timed
    calls after an untimed one).

    One matmul is `2 * size**3` FLOPs (a multiply and an add per term). The call runs compiled
    and its result is reduced to a scalar read back to the host, so each timing covers the whole
    product (the reduction costs under 0.1% of it). `chain` > 1 multiplies by `b` that many
    times in one call (each product rescaled, so bfloat16 stays finite), hiding a GPU's
    per-call launch and read-back time.

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

    def call():
        return ops.convert_to_numpy(compiled(a, b))

    timing = time_call(call, repeats=repeats, warmup=call)
    flops = 2.0 * size**3 * chain
    return {"dtype": dtype, "size": size, "repeats": repeats, "chain": chain,
            "seconds": timing.median, "flops_per_second": flops / timing.median,
            "best_flops_per_second": flops / timing.best}


def measure_bf16_speedup(shapes, rounds=9, min_seconds=0.02):
    """How much faster bfloat16 runs the matmuls `shapes` than float32 here: a median of rounds.

    Each of `rounds` rounds (after an untimed call per dtype) times the same products once per
    dtype, back to back in alternating order, so a load that comes and goes slows both sides
    alike; one disturbed round cannot move the median of float32 / bfloat16 seconds.

    Args:
        shapes: `(m, k, n)` triples: an `m x k` by `k x n` product each (e.g. a training
            step's `batch * length x d_model` by `d_model x ff_dim`).
        min_seconds: a side of a round repeats the products until it lasts this long (tiny
            shapes would otherwise time the call overhead).

    Returns:
        A dict: `speedup` (median ratio, > 1: bf16 faster), `ratios` (per round),
        `float32_seconds` and `bfloat16_seconds` (medians, per call), `calls` (per side of a
        round), `rounds`, `shapes`.
    """
    rng = np.random.default_rng(0)
    arrays = [
        (rng.standard_normal((m, k), dtype=np.float32),
         rng.standard_normal((k, n), dtype=np.float32) / np.sqrt(k))
        for m, k, n in shapes
    ]  # fmt: skip
    operands = {
        dtype: [(ops.cast(a, dtype), ops.cast(b, dtype)) for a, b in arrays]
        for dtype in ("float32", "bfloat16")
    }

    def products(pairs):
        return sum(ops.sum(ops.cast(ops.matmul(a, b), "float32")) for a, b in pairs)

    compiled = compile_function(products)

    def run(dtype):
        return ops.convert_to_numpy(compiled(operands[dtype]))

    warm = {dtype: time_call(lambda d=dtype: run(d), warmup=lambda d=dtype: run(d)).total
            for dtype in operands}  # fmt: skip
    calls = max(1, int(np.ceil(min_seconds / max(min(warm.values()), 1e-6))))
    ratios, seconds = [], {dtype: [] for dtype in operands}
    for round_index in range(rounds):
        order = ("float32", "bfloat16") if round_index % 2 == 0 else ("bfloat16", "float32")
        for dtype in order:
            duration = time_call(lambda d=dtype: [run(d) for _ in range(calls)]).total
            seconds[dtype].append(duration / calls)
        ratios.append(seconds["float32"][-1] / seconds["bfloat16"][-1])
    return {"speedup": statistics.median(ratios), "ratios": ratios,
            "float32_seconds": statistics.median(seconds["float32"]),
            "bfloat16_seconds": statistics.median(seconds["bfloat16"]), "calls": calls,
            "rounds": rounds, "shapes": [list(shape) for shape in shapes]}
