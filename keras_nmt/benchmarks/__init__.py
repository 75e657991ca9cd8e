"""The benchmark of `keras-nmt benchmark` (a thin CLI over this package) and its measuring code.

* `flops`: analytic model FLOPs (2 * m * n * k per matmul) of every registered model, from its
  configuration and the real (non-padding) token counts of a batch.
* `train_speed`, `decode_speed`: training-step and decoding throughput of a model.
* `BenchmarkContext` (`benchmark_context`): a run's options, the shared data and peak rates.
* `pipeline_section`, `train_section`, `decode_section`, `export_section`: each section's
  runner (`run_*(context) -> records`) and its Markdown table (`*_table(records)`);
  `sections`: `SECTIONS`, `TABLES` and `markdown_report(records)`.
* `jax_benchmark`, `jax_run`, `synthetic_batches`: `keras-nmt benchmark --backend jax`, the
  train and decode sections on synthetic token batches, importing no TensorFlow.
* `translation_speed`: strings-in/strings-out throughput in-process vs SavedModel
  (`time_translation`, which the export section uses too), first-call latency of each
  signature, and a decode profile (cache size, length sorting); runnable as
  `keras-nmt benchmark --only translation --run RUN_DIR`.

The machine description and the peak matmul rate live in `keras_nmt.hardware`; every speed
here is timed by `keras_nmt.timing`.
"""

from keras_nmt._lazy import lazy_package

__all__ = lazy_package(
    __name__,
    {
        "attention_pair_flops": "keras_nmt.benchmarks.flops",
        "dense_flops": "keras_nmt.benchmarks.flops",
        "forward_flops": "keras_nmt.benchmarks.flops",
        "lstm_step_flops": "keras_nmt.benchmarks.flops",
        "training_flops": "keras_nmt.benchmarks.flops",
    },
)
