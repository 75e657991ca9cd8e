"""TensorFlow's thread pools set for translation throughput, as `keras-nmt translate`,
`evaluate` and `serve` set them (docs/decoding.md)."""

import os

import tensorflow as tf

from keras_nmt.inference.batch_translator import parallel_batches


def configure_decoding_threads(parallel=None):
    """Sets TensorFlow's thread pools for translation throughput: parallel one-thread batches.

    At translation's matrix sizes (a batch of 64 rows by a few hundred columns) two cores do more
    as two batches on one thread each than as one batch on two threads (see
    docs/results/parallel-translation.md). This gives each op one thread
    (`intra_op_parallelism_threads = 1`) and runs `parallel` ops at once
    (`inter_op_parallelism_threads`), so that `translate_batch` translates that many batches
    at once (`parallel_batches`). Training wants the opposite (big matmuls over all cores):
    call this only in a process that translates, first, before TensorFlow runs any op.

    Args:
        parallel: batches at once (default: the CPU count).

    Returns:
        The batches `translate_batch` will now translate at once: `parallel`, or 1 where
        TensorFlow already runs (its pools are fixed then) or a GPU decodes.

    Example:
        >>> configure_decoding_threads()  # first thing in `keras-nmt translate`  # doctest: +SKIP
        2
    """
    parallel = parallel or os.cpu_count() or 1
    if tf.config.list_physical_devices("GPU"):
        return 1
    try:
        tf.config.threading.set_intra_op_parallelism_threads(1)
        tf.config.threading.set_inter_op_parallelism_threads(parallel)
    except RuntimeError:  # TensorFlow has run an op: its pools can no longer change
        return parallel_batches()
    return parallel_batches()
