"""`keras-nmt benchmark` (a thin CLI over this package): its sections and measuring code.

`sections` names the TensorFlow sections, with `BenchmarkContext` (a run's options and shared
data) and the "pipeline" section; `train_section` holds "train" and "profile",
`translation_section` "decode", "export", "translation" and the CTranslate2 engines;
`jax_benchmark` is `--backend jax` (no TensorFlow). `speed` (no TensorFlow) is what they share,
`flops` counts model FLOPs, `serve_load` load-tests the server; the machine and its peak matmul
rate live in `keras_nmt.workshop.hardware`. This module, importing nothing, names what the command
offers.
"""

# The sections of `keras-nmt benchmark`, in the order they run (`sections.SECTIONS`).
SECTION_NAMES = ("pipeline", "train", "profile", "decode", "export", "translation")
# `--quick`: training pairs, vocabulary size and test sentences of the smoke-test sizes.
QUICK_PAIRS = 2000
QUICK_VOCAB_SIZE = 300
QUICK_SENTENCES = 16
# `--backend jax`: its sections, presets (`jax_benchmark.PRESETS`) and dtype policies
# (`speed.COMPUTE_DTYPES`; not "auto", TensorFlow's device probe).
JAX_SECTION_NAMES = ("train", "decode")
JAX_PRESETS = ("reference", "gpu", "quick")
JAX_PRECISIONS = ("float32", "mixed_bfloat16", "mixed_float16")
