"""Train a matrix of configurations the same way and compare them: table and plots.

Every configuration of a preset trains on the same data, tokenizers, seed and budget (--epochs
and/or --time-budget per configuration) into OUTPUT_DIR/runs/NAME (re-running the command resumes an
interrupted configuration and reuses finished ones). Then OUTPUT_DIR receives results.md (also
printed), results.csv, results.json, val_loss.png and val_bleu.png (one line per configuration
against wall time) and attention-N.png (the same sentences under each attention model, side by
side). A configuration that crashes is reported as failed with its error; the others still run.

Columns: parameters; training time (wall time of all epochs, validation included); target
tokens/s (non-padding target tokens of one training epoch x epochs / seconds spent in training
steps, validation excluded); the last validation loss; BLEU, chrF (sacreBLEU) and exact match
(built-in data only) of the evaluation sentences (validation split; test split for spa-eng);
decoding sentences/s (the evaluation sources in batches of 64, after a warm-up batch).

Presets (--list shows their configurations):
    api              functional vs subclassed twin of each model, plus subclassed run eagerly
    attention        lstm vs luong-dot/general/concat vs bahdanau vs transformer
    granularity      char vs word vs subword tokenizers, same model
    teacher-forcing  p = 1 vs linear, exponential, inverse-sigmoid scheduled sampling
    decoding         one model; greedy vs beam 2/4/8, with and without length penalty
    spa-eng          reference run: each model on spa-eng (Spanish->English), subword 8k,
                     45 minutes each, test BLEU/chrF greedy and beam 5
    tiny             smoke test: two small models, 1 epoch on a little of the dates data

Examples:
    keras-nmt compare --preset attention --time-budget 5 --output-dir runs/compare-attention
    keras-nmt compare --preset attention --only luong-dot --only bahdanau --epochs 3
    keras-nmt compare --preset decoding --epochs 5
    keras-nmt compare --preset spa-eng --time-budget 45
    keras-nmt compare --preset tiny --output-dir /tmp/tiny
"""

import argparse
import sys

from keras_nmt.cli.common import (
    add_debug_flag,
    command,
    exit_status,
    new_parser,
    non_negative_int,
    positive_float,
    positive_int,
    rate,
    start_tensorflow,
)
from keras_nmt.comparison import get_preset, preset_names
from keras_nmt.training.train_config import PRECISIONS

# Epochs when only --time-budget is given: the time budget stops training first.
EPOCHS_FOR_TIME_BUDGET = 100_000


def build_parser(prog=None):
    parser = new_parser(__doc__, prog)
    parser.add_argument("--preset", help="which comparison (see below; --list)")
    parser.add_argument("--list", action="store_true",
                        help="list the presets and their configurations, then exit")
    parser.add_argument("--only", action="append", default=[], metavar="NAME",
                        help="run only this configuration or variant (repeatable; default: "
                        "all configurations of the preset, no variants)")
    parser.add_argument("--output-dir", default=None,
                        help="where results, plots and runs/NAME go (default: runs/compare-PRESET)")
    parser.add_argument("--record", default=None, metavar="JSON",
                        help="also merge every finished configuration into this committed record "
                        "(e.g. docs/results/spa-eng.json; a configuration run later replaces only "
                        "its own entry) and rewrite its table (.md) and validation-BLEU plot "
                        "(.png) beside it")
    parser.add_argument("--attention-sentences", type=non_negative_int, default=3,
                        help="evaluation sentences plotted side by side (default: %(default)s)")

    budget = parser.add_argument_group(
        "budget (per configuration; the preset's default when not given)")
    budget.add_argument("--epochs", type=positive_int, default=None,
                        help="training epochs (without --time-budget: no time limit)")
    budget.add_argument("--time-budget", dest="minutes", type=positive_float, default=None,
                        metavar="MINUTES",
                        help="wall-clock budget: stop after the epoch that crosses it; the "
                        "weights of the moment it runs out are scored too (the record's "
                        "'at N min' column)")

    data = parser.add_argument_group("data (the preset's default when not given)")
    data.add_argument("--data", default=None,
                      help="built-in name ('dates', the default), a corpus file or a path with "
                      "{split} (e.g. ../shared/data/spa-eng.{split}.tsv)")
    data.add_argument("--source-column", type=non_negative_int, default=None,
                      help="which TSV column is the source (default: 1)")
    data.add_argument("--train-size", type=positive_int, default=None,
                      help="training pairs: generated, or a seeded sample of a corpus file "
                      "(default: all; built-in: 20,000)")
    data.add_argument("--valid-size", type=positive_int, default=None,
                      help="validation pairs: generated, or a seeded sample (default: all; "
                      "built-in: 1,000)")
    data.add_argument("--tokenizer", default=None, choices=["char", "word", "subword"],
                      help="tokenizer of presets that do not vary it (default: char; spa-eng: "
                      "subword)")
    data.add_argument("--vocab-size", type=positive_int, default=None,
                      help="word/subword vocabulary size (default: 8000)")
    data.add_argument("--max-length", type=positive_int, default=None,
                      help="longest sequence in tokens (default: 100; spa-eng: 64)")

    sizes = parser.add_argument_group(
        "model sizes and training (the preset's default when not given)")
    sizes.add_argument("--embedding-dim", type=positive_int, default=None,
                       help="embedding width of the recurrent models (default: 128)")
    sizes.add_argument("--units", type=positive_int, default=None,
                       help="LSTM width of the recurrent models (default: 256)")
    sizes.add_argument("--layers", dest="num_layers", type=positive_int, default=None,
                       help="stacked layers (default: 1)")
    sizes.add_argument("--d-model", type=positive_int, default=None,
                       help="Transformer width (default: 128)")
    sizes.add_argument("--heads", dest="num_heads", type=positive_int, default=None,
                       help="Transformer heads (default: 4)")
    sizes.add_argument("--ff-dim", type=positive_int, default=None,
                       help="Transformer feed-forward width (default: 512)")
    sizes.add_argument("--dropout", type=rate, default=None, help="dropout rate (default: 0)")
    batching = sizes.add_mutually_exclusive_group()
    batching.add_argument("--batch-size", type=positive_int, default=None,
                          help="pairs per batch (default: 64)")
    batching.add_argument("--batch-tokens", type=positive_int, default=None, metavar="N",
                          help="instead of --batch-size: length-bucketed batches of at most N "
                          "padded source + target tokens (fairseq --max-tokens)")
    sizes.add_argument("--learning-rate", type=positive_float, default=None,
                       help="Adam learning rate of the recurrent models (default: 0.001)")
    sizes.add_argument("--warmup-steps", type=positive_int, default=None,
                       help="Transformer warm-up steps (default: 4000)")
    sizes.add_argument("--precision", default=None, choices=PRECISIONS,
                       help="Keras dtype policy of every configuration; logits and softmax stay "
                       "float32; auto picks it from the hardware (see keras-nmt train --help) "
                       "(default: auto)")
    sizes.add_argument("--seed", type=int, default=None,
                       help="seed of data order and weights, the same for every configuration "
                       "(default: 0)")
    sizes.add_argument("--verbose", type=int, default=2, choices=[0, 1, 2],
                       help="Keras progress: 0 silent, 1 bar, 2 a line per epoch "
                       "(default: %(default)s)")
    budget.add_argument("--minutes", dest="minutes", type=positive_float,
                        help=argparse.SUPPRESS)  # the old spelling of --time-budget
    add_debug_flag(parser)
    return parser


# Flags that are TrainConfig fields under the same name.
_TRAIN_FIELDS = (
    "data", "source_column", "train_size", "valid_size", "tokenizer", "vocab_size",
    "max_length", "embedding_dim", "units", "num_layers", "d_model", "num_heads", "ff_dim",
    "dropout", "batch_size", "batch_tokens", "learning_rate", "warmup_steps", "precision", "seed",
    "epochs", "verbose",
)


def user_options(args):
    """The `TrainConfig` fields the user set explicitly (they override the preset's defaults)."""
    options = {key: getattr(args, key) for key in _TRAIN_FIELDS if getattr(args, key) is not None}
    if args.minutes is not None:
        options["time_budget"] = args.minutes
        options.setdefault("epochs", EPOCHS_FOR_TIME_BUDGET)
    elif args.epochs is not None:
        options["time_budget"] = None  # an epoch count alone: no wall-clock limit
    return options


def list_presets(print_fn=print):
    for name in preset_names():
        preset = get_preset(name)
        print_fn(f"{name}: {preset.description}")
        for configuration in preset.configurations:
            print_fn(f"    {configuration.name:24s} {configuration.description}")
        if preset.variants:
            print_fn("    variants (trained only when named with --only):")
        for configuration in preset.variants:
            print_fn(f"    {configuration.name:24s} {configuration.description}")
        if len(preset.decodings) > 1:
            print_fn(f"    decodings: {', '.join(d.name for d in preset.decodings)}")


def describe(preset, options):
    """The Markdown header of results.md."""
    config = preset.configurations[0].resolve(preset.defaults, options)
    budget = f"{config.epochs} epoch{'s' if config.epochs != 1 else ''}"
    if config.time_budget:
        budget = f"{config.time_budget:g} min" + (
            f" or {config.epochs} epochs" if config.epochs < EPOCHS_FOR_TIME_BUDGET else "")
    return "\n".join([
        f"# Comparison `{preset.name}`",
        "",
        preset.description,
        "",
        f"- data: `{config.data}` (source column {config.source_column}), evaluated on its "
        f"{'validation' if preset.evaluation_split == 'valid' else 'test'} split",
        f"- budget per configuration: {budget}; seed {config.seed}; precision {config.precision}",
        "- training time: wall time of all epochs, validation included; target tokens/s: "
        "non-padding target tokens of one epoch x epochs / seconds in training steps",
        "- decoding sentences/s: evaluation sources in batches of 64, after a warm-up batch",
    ])


@command
def main(argv=None, prog=None, print_fn=print):
    parser = build_parser(prog)
    args = parser.parse_args(argv)
    if args.list:
        list_presets(print_fn)
        return 0
    if not args.preset:
        parser.error("--preset is required (see --list)")
    start_tensorflow(args.debug)
    # Imported after parsing: `--help` and flag errors must not wait for TensorFlow.
    from keras_nmt.comparison.results_record import read_record  # noqa: PLC0415
    from keras_nmt.comparison.runner import run_comparison  # noqa: PLC0415

    try:
        preset = get_preset(args.preset).select(args.only)
        if args.record:
            read_record(args.record, preset.name)  # a bad record file fails before training
    except ValueError as error:
        parser.error(str(error))
    options = user_options(args)
    output_dir = args.output_dir or f"runs/compare-{preset.name}"
    rows, paths = run_comparison(
        preset, output_dir, options, print_fn=print_fn,
        attention_sentences=args.attention_sentences, header=describe(preset, options),
        results_record=args.record,
    )
    print_fn(paths["md"].read_text())
    written = [paths["md"], paths["csv"], paths["json"], *paths["plots"], *paths.get("record", [])]
    print_fn("written: " + ", ".join(str(path) for path in written))
    failed = sorted({row["configuration"] for row in rows if row["status"] != "ok"})
    if failed:
        print_fn(f"failed: {', '.join(failed)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(exit_status(main()))
