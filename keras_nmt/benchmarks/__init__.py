"""`keras-nmt benchmark` (a thin CLI over this package): its sections and measuring code.

One module per TensorFlow section (`pipeline_section`, `train_section`, `profile_section`,
`decode_section`, `translation_section`: "export" and "translation"), each with its runner
(`run_*(context) -> records`) and its Markdown table; `sections` lists them in order;
`benchmark_context` holds a run's options and shared data. `speed` (NumPy only) is what the
sections and the JAX benchmark (`jax_benchmark`, `jax_run`: no TensorFlow) share; `flops` counts
model FLOPs; `ctranslate2_speed` and `serve_load` time CTranslate2 and the server. The machine
and the peak matmul rate live in `keras_nmt.hardware`. This module, importing nothing, names
what the command offers (its `--help` lists them).
"""

# The sections of `keras-nmt benchmark`, in the order they run (`sections.SECTIONS`).
SECTION_NAMES = ("pipeline", "train", "profile", "decode", "export", "translation")
# `--quick`: vocabulary size and test sentences of the smoke-test sizes.
QUICK_VOCAB_SIZE = 300
QUICK_SENTENCES = 16
# `--backend jax`: its sections, presets (`jax_benchmark.PRESETS`) and dtype policies
# (`speed.COMPUTE_DTYPES`; "auto" is TensorFlow's device probe, so it is not among them).
JAX_SECTION_NAMES = ("train", "decode")
JAX_PRESETS = ("reference", "gpu", "quick")
JAX_PRECISIONS = ("float32", "mixed_bfloat16", "mixed_float16")
