"""Measuring code for `apps/benchmark.py`: FLOP counts, peak matmul rate, timing helpers.

* `flops`: analytic model FLOPs (2 * m * n * k per matmul) of every registered model, from its
  configuration and the real (non-padding) token counts of a batch.
* `peak`: the machine's measured matmul FLOP/s in a given dtype (the MFU denominator).
* `timing`: median-of-repeats timing.
* `train_speed`, `decode_speed`: training-step and decoding throughput of a model.
* `translation_speed`: strings-in/strings-out throughput in-process vs SavedModel, first-call
  latency of each signature, and a decode profile (cache size, length sorting); runnable as
  `python -m keras_nmt.benchmarks.translation_speed RUN_DIR --data TEST.tsv`.
"""

from keras_nmt.benchmarks.flops import (
    attention_pair_flops,
    dense_flops,
    forward_flops,
    lstm_step_flops,
    training_flops,
)
from keras_nmt.benchmarks.peak import measure_peak_matmul
from keras_nmt.benchmarks.timing import median, time_repeats

__all__ = [
    "attention_pair_flops",
    "dense_flops",
    "forward_flops",
    "lstm_step_flops",
    "measure_peak_matmul",
    "median",
    "time_repeats",
    "training_flops",
]
