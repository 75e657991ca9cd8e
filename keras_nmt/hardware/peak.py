"""The machine's peak matmul rate, measured: the denominator of model FLOPs utilization (MFU)."""

import tensorflow as tf

from keras_nmt.hardware.timing import median, time_repeats


def measure_peak_matmul(dtype="float32", size=2048, repeats=5):
    """FLOP/s of a `size x size` by `size x size` `tf.matmul` in `dtype` (median of repeats).

    One matmul is `2 * size**3` FLOPs (a multiply and an add per term). The call runs inside a
    `tf.function` and the result is reduced to a scalar read back to the host, so each timing
    covers the whole product (the reduction costs `size**2`, under 0.1% of the product).

    Args:
        dtype: `"float32"`, `"bfloat16"` or `"float16"`.
        size: the matrix side.
        repeats: timed calls (one untimed warm-up call comes first).

    Returns:
        A dict: `flops_per_second` (median), `best_flops_per_second`, `seconds` (median),
        `dtype`, `size`, `repeats`.
    """
    generator = tf.random.Generator.from_seed(0)
    a = tf.cast(generator.normal([size, size]), dtype)
    b = tf.cast(generator.normal([size, size]), dtype)

    @tf.function
    def product():
        return tf.reduce_sum(tf.cast(tf.matmul(a, b), tf.float32))

    durations = time_repeats(lambda: product().numpy(), repeats=repeats, warmup=1)
    flops = 2.0 * size**3
    return {
        "dtype": dtype,
        "size": size,
        "repeats": repeats,
        "seconds": median(durations),
        "flops_per_second": flops / median(durations),
        "best_flops_per_second": flops / min(durations),
    }
