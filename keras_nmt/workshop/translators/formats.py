"""The export formats and their options, without importing TensorFlow (the command line lists
them in its `--help`, and checks a model's name before TensorFlow starts)."""

import os

FORMATS = ("saved_model", "ctranslate2")
# CTranslate2's weight types (`int8` keeps float32 activations on a CPU).
QUANTIZATIONS = (
    "float32", "int8", "int8_float32", "int8_float16", "int8_bfloat16", "int16", "float16",
    "bfloat16",
)

# The models CTranslate2 runs: it has Transformers only (no recurrent or convolutional model).
CTRANSLATE2_MODELS = ("transformer",)


def check_ctranslate2_model(model, run_dir):
    """`ValueError` naming the run unless CTranslate2 runs its `model` (a `--model` name)."""
    if model not in CTRANSLATE2_MODELS:
        raise ValueError(f"{run_dir}: a {model} model cannot be exported to CTranslate2, which "
                         "runs Transformers only; export it as a SavedModel (--format "
                         "saved_model)")


def check_model_name(name):
    """`ValueError` unless `name` is one folder's name, the NAME of `OUTPUT_DIR/NAME/VERSION`:
    `../m` exported outside the output folder, `.` into it, among other models' names."""
    if "/" in name or os.sep in name or name in (".", ".."):
        raise ValueError("a name is one folder's name, not a path: give the parent folder as "
                         "--output-dir")
