"""Decoding throughput of a model on batches of source ids (greedy or beam search)."""

import numpy as np
import tensorflow as tf

from keras_nmt.decoding import decode
from keras_nmt.timing import time_call


def measure_decode_speed(model, batches, strategy="greedy", **options):
    """Sentences per second of `keras_nmt.decoding.decode` inside one `tf.function`.

    The function has a `(None, None)` int32 input signature, so it is traced once; the first
    batch is decoded once untimed (tracing, graph optimization), then every batch is timed.

    Args:
        model: a model keeping the inference contract.
        batches: a list of int32 `(batch, src_len)` source id arrays padded with 0.
        strategy: `"greedy"` or `"beam"`.
        **options: more `decode` options (`beam_size`, `max_length`, ...).

    Returns:
        A dict: `sentences_per_second`, `seconds`, `sentences`, `mean_output_length` (tokens of
        the best hypothesis, END included), `max_output_length`, `warmup_seconds`.
    """

    @tf.function(input_signature=[tf.TensorSpec([None, None], tf.int32)])
    def run(ids):
        result = decode(model, ids, strategy, **options)
        lengths = result.lengths if strategy != "beam" else result.lengths[:, 0]
        return lengths

    timing = time_call(
        lambda: [run(tf.constant(ids, tf.int32)).numpy() for ids in batches],
        warmup=lambda: run(tf.constant(batches[0], tf.int32)).numpy(),
    )
    lengths = np.concatenate(timing.result)
    return {
        "sentences_per_second": len(lengths) / timing.total,
        "seconds": timing.total,
        "sentences": int(len(lengths)),
        "mean_output_length": float(np.mean(lengths)),
        "max_output_length": int(np.max(lengths)),
        "warmup_seconds": timing.warmup_seconds,
    }
