"""The `keras-nmt` command: one console script, one subcommand per task.

    keras-nmt train       train a model and write a run folder
    keras-nmt translate   translate sentences with a run folder or an export
    keras-nmt evaluate    score a run folder or an export on a test set (BLEU, chrF, CER, WER)
    keras-nmt export      export a run folder as a SavedModel
    keras-nmt import      import a Marian (OPUS-MT) model as a run folder
    keras-nmt serve       serve models over HTTP (LibreTranslate API, explorer page)
    keras-nmt compare     train a matrix of configurations the same way and compare them
    keras-nmt benchmark   measure throughput (pipeline, training, decoding, translation)
    keras-nmt spell       spelling correction: compare token levels, train, correct
    keras-nmt demo        train, score, export and reload a small model on built-in data

Each subcommand lives in `keras_nmt/workshop/cli/<name>.py` with `main(argv=None, prog=None)`;
`apps/<name>.py` runs the same code. Parsing imports no TensorFlow (`--help` answers at once);
TensorFlow is imported after the flags are read (`common.start_tensorflow`).

Example:
    >>> from keras_nmt.workshop.cli import main
    >>> main(["translate", "runs/luong", "3rd of March 2021"])
"""

import importlib
import sys

import keras_nmt
from keras_nmt.workshop import interruption
from keras_nmt.workshop.arguments import new_parser
from keras_nmt.workshop.cli.common import exit_status

COMMANDS = (
    "train", "translate", "evaluate", "export", "import", "serve", "compare", "benchmark", "spell",
    "demo",
)


def summary(name):
    """The first line of subcommand `name`'s docstring (its `--help` description)."""
    module = importlib.import_module(f"keras_nmt.workshop.cli.{name}")
    return module.__doc__.strip().split("\n\n")[0].replace("\n", " ")


def build_parser():
    parser = new_parser(__doc__.split("\n\n")[0], prog="keras-nmt")
    parser.add_argument("--version", action="version",
                        version=f"keras-nmt {keras_nmt.__version__}")
    parser.add_argument("command", choices=COMMANDS, metavar="COMMAND",
                        help="one of: " + ", ".join(COMMANDS) + "; `keras-nmt COMMAND --help` "
                        "explains its flags")
    parser.epilog = "commands:\n" + "\n".join(f"  {name:<10} {summary(name)}" for name in COMMANDS)
    return parser


def main(argv=None):
    """Runs `keras-nmt ARGV...`; returns the subcommand's result (an exit status on failure,
    130 / 143 after a signal, also one arriving while the subcommand's module is imported)."""
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        return _main(argv)
    except KeyboardInterrupt as error:
        return interruption.report(error, "--debug" in argv)


def _main(argv):
    if not argv or argv[0].startswith("-"):
        build_parser().parse_args(argv or ["--help"])  # --help, --version, or a usage error
    name, rest = argv[0], argv[1:]
    if name not in COMMANDS:
        build_parser().parse_args([name])  # exits with "invalid choice"
    module = importlib.import_module(f"keras_nmt.workshop.cli.{name}")
    return module.main(rest, prog=f"keras-nmt {name}")


def run():
    """The console script's entry point: `keras-nmt ...` exits with the command's status."""
    interruption.install()
    interruption.exit_now(exit_status(main()))
