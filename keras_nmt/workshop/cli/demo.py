"""Train a small model on built-in dates, score, export, reload with plain TensorFlow, translate.

The model (by default the plain LSTM encoder-decoder, the project's default model) trains on the
built-in dates dataset and is scored on its held-out test split; the SavedModel is then reloaded
in a fresh process that imports only TensorFlow. A model with attention (--model luong,
bahdanau or transformer) also draws where it looked for one sentence (plots/demo/).

Example:
    keras-nmt demo                                  # the plain LSTM: no attention to draw
    keras-nmt demo --model luong --time-budget 3    # attention, and its heatmap
"""

import dataclasses
import subprocess
import sys
import textwrap

from keras_nmt.workshop.arguments import new_parser
from keras_nmt.workshop.cli import evaluate, train, translate
from keras_nmt.workshop.cli.common import (
    add_debug_flag,
    command,
    exit_status,
    start_tensorflow,
)
from keras_nmt.workshop.cli.options import add_options
from keras_nmt.workshop.run.train_config import TrainConfig

# The demo trains for 3 minutes unless told otherwise.
DEFAULTS = dataclasses.replace(TrainConfig(), time_budget=3.0, output="runs/demo")
PLOTS = "plots/demo"
EXAMPLES = ["3rd of March 2021", "Tuesday, July 4, 1989", "25.12.2001", "the first of may, 1999"]

# Runs in a fresh interpreter that imports only TensorFlow and tensorflow-text.
RELOAD = textwrap.dedent(
    """
    import os
    import sys
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    stderr = os.dup(2)
    os.dup2(os.open(os.devnull, os.O_WRONLY), 2)  # TensorFlow's and SentencePiece's notes
    import tensorflow as tf
    import tensorflow_text  # noqa: F401  (registers the tokenizer ops)
    tf.config.list_physical_devices()
    translator = tf.saved_model.load(sys.argv[1])
    os.dup2(stderr, 2)
    outputs = translator.signatures["serving_default"](text=tf.constant(sys.argv[2:]))
    for source, target in zip(sys.argv[2:], outputs["translation"].numpy()):
        print(f"  {source!r} -> {target.decode()!r}")
    """
)


def build_parser(prog=None):
    parser = new_parser(__doc__, prog)
    add_options(parser, ["model", "api", "time_budget", "seed", "output"], DEFAULTS,
                helps={"output": "run folder"})
    add_debug_flag(parser)
    return parser


@command
def main(argv=None, prog=None):
    args = build_parser(prog).parse_args(argv)
    start_tensorflow(args.debug)
    # Imported after parsing: `--help` and flag errors must not wait for TensorFlow.
    from keras_nmt.workshop.translators.export_translator import export_translator  # noqa: PLC0415

    print(f"== training {args.model} ({args.api}) on the built-in dates dataset ==")
    result = train.main([
        "--model", args.model, "--api", args.api, "--units", "128", "--embedding-dim", "32",
        "--epochs", "40", "--time-budget", str(args.time_budget), "--seed", str(args.seed),
        "--output-dir", args.output, "--verbose", "2", "--validation-sentences", "200",
    ])
    if not hasattr(result, "translator"):
        return result  # an error or an interruption, already reported
    print("== scoring on the 1,000 held-out test dates ==")
    scores = evaluate.main([args.output, "--data", "dates", "--seed", str(args.seed)])
    if not isinstance(scores, dict):
        return scores
    print("== exporting ==")
    path = export_translator(result.translator, base_dir="saved_models", name="demo")
    print(f"SavedModel written to {path}")
    print("== reloading it with tensorflow and tensorflow_text only, and translating ==")
    subprocess.run([sys.executable, "-c", RELOAD, str(path), *EXAMPLES], check=True)
    if not result.model.has_attention:
        print(f"(the {args.model} model has no attention to draw: it encodes the source into "
              "one state; keras-nmt demo --model luong trains one that has)")
        return 0
    print(f"== where the model looked: {PLOTS}/attention_0001.png ==")
    return translate.main([args.output, "--attention-plot", PLOTS, EXAMPLES[0]])


if __name__ == "__main__":
    sys.exit(exit_status(main()))
