"""What the benchmark command offers, without importing TensorFlow (its `--help` lists them)."""

# The sections of `keras-nmt benchmark`, in the order they run (`sections.SECTIONS`).
SECTION_NAMES = ("pipeline", "train", "profile", "decode", "export", "translation")
TOKENIZER_KINDS = ("char", "word", "subword")
# `--quick`: vocabulary size and test sentences of the smoke-test sizes.
QUICK_VOCAB_SIZE = 300
QUICK_SENTENCES = 16

# `--backend jax` (`jax_benchmark`): its sections, presets (`PRESETS`) and dtype policies
# (`speed.COMPUTE_DTYPES`); "auto" is TensorFlow's device probe, so it is not among them.
JAX_SECTION_NAMES = ("train", "decode")
JAX_PRESETS = ("reference", "gpu", "quick")
JAX_PRECISIONS = ("float32", "mixed_bfloat16", "mixed_float16")
