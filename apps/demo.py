"""The README's main job: train a small model on the built-in dates dataset, score it on the
held-out test split, export it as a SavedModel, reload it with plain TensorFlow and translate.

Example:
    python apps/demo.py --model luong --minutes 3
"""

import argparse
import os
import subprocess
import sys
import textwrap

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("KERAS_BACKEND", "tensorflow")
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # finds `apps`

from apps import evaluate, train  # noqa: E402
from apps._cli import positive_float  # noqa: E402
from keras_nmt.export import export_translator  # noqa: E402

EXAMPLES = ["3rd of March 2021", "Tuesday, July 4, 1989", "25.12.2001", "the first of may, 1999"]

# Runs in a fresh interpreter that imports only TensorFlow and tensorflow-text.
RELOAD = textwrap.dedent(
    """
    import sys
    import tensorflow as tf
    import tensorflow_text  # noqa: F401  (registers the tokenizer ops)
    translator = tf.saved_model.load(sys.argv[1])
    outputs = translator.signatures["serving_default"](text=tf.constant(sys.argv[2:]))
    for source, target in zip(sys.argv[2:], outputs["translation"].numpy()):
        print(f"  {source!r} -> {target.decode()!r}")
    """
)


def build_parser():
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--model", default="luong",
                        choices=["lstm", "luong", "bahdanau", "transformer"],
                        help="architecture to train (default: %(default)s)")
    parser.add_argument("--api", default="functional", choices=["functional", "subclassed"],
                        help="which twin (default: %(default)s)")
    parser.add_argument("--minutes", type=positive_float, default=3.0,
                        help="training budget in minutes (default: %(default)s)")
    parser.add_argument("--seed", type=int, default=0, help="seed (default: %(default)s)")
    parser.add_argument("--output", default="runs/demo",
                        help="run directory (default: %(default)s)")
    return parser


def main(argv=None):
    args = build_parser().parse_args(argv)

    print(f"== training {args.model} ({args.api}) on the built-in dates dataset ==")
    result = train.main([
        "--model", args.model, "--api", args.api, "--units", "128", "--embedding-dim", "32",
        "--epochs", "40", "--time-budget", str(args.minutes), "--seed", str(args.seed),
        "--output", args.output, "--verbose", "2", "--validation-sentences", "200",
    ])
    print("== scoring on the 1,000 held-out test dates ==")
    evaluate.main([args.output, "--data", "dates", "--seed", str(args.seed)])
    print("== exporting ==")
    path = export_translator(result.translator, base_dir="saved_models", name="demo")
    print(f"SavedModel written to {path}")
    print("== reloading it with tensorflow and tensorflow_text only, and translating ==")
    subprocess.run([sys.executable, "-c", RELOAD, str(path), *EXAMPLES], check=True)


if __name__ == "__main__":
    main(sys.argv[1:])
