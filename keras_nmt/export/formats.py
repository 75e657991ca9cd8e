"""The export formats and their options, without importing TensorFlow (the command line lists
them in its `--help`)."""

FORMATS = ("saved_model", "ctranslate2")
# CTranslate2's weight types (`int8` keeps float32 activations on a CPU).
QUANTIZATIONS = (
    "float32", "int8", "int8_float32", "int8_float16", "int8_bfloat16", "int16", "float16",
    "bfloat16",
)
