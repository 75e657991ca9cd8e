"""What the benchmark command offers, without importing TensorFlow (its `--help` lists them)."""

# The sections of `keras-nmt benchmark`, in the order they run (`sections.SECTIONS`).
SECTION_NAMES = ("pipeline", "train", "profile", "decode", "export", "translation")
TOKENIZER_KINDS = ("char", "word", "subword")
# `--quick`: vocabulary size and test sentences of the smoke-test sizes.
QUICK_VOCAB_SIZE = 300
QUICK_SENTENCES = 16
