"""The benchmark of `keras-nmt benchmark` (a thin CLI over this package) and its measuring code.

* `flops`: analytic model FLOPs (2 * m * n * k per matmul) of every registered model, from its
  configuration and the real (non-padding) token counts of a batch.
* `speed` (NumPy only): training throughput on fixed batches, padded source batches, and
  synthetic token batches of realistic lengths.
* `BenchmarkContext` (`benchmark_context`): a run's options, the shared data and peak rates.
* `pipeline_section`, `train_section`, `profile_section`, `decode_section`,
  `translation_section` (sections "translation" and "export"): each section's runner
  (`run_*(context) -> records`), its measuring code and its Markdown table
  (`*_table(records)`); `sections`: `SECTIONS`, `TABLES` and `markdown_report(records)`.
* `ctranslate2_speed`: the CTranslate2 engines beside the in-process `Translator`.
* `jax_benchmark`, `jax_run`: `keras-nmt benchmark --backend jax`, the train and decode
  sections on synthetic token batches, importing no TensorFlow.

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
