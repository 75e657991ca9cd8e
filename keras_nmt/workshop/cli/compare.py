"""Train a matrix of configurations the same way and compare them: table and plots.

Every configuration of a preset trains on the same data, tokenizers, seed and budget (--epochs
and/or --time-budget per configuration) into OUTPUT_DIR/runs/NAME (re-running the command resumes an
interrupted configuration and reuses finished ones). Then OUTPUT_DIR receives results.md (also
printed), results.csv, results.json, val_loss.png and val_bleu.png (one line per configuration
against wall time) and attention-N.png (the same sentences under each attention model, side by
side). A configuration that crashes is reported as failed with its error; the others still run.
The flags below change every configuration, except what a configuration compares (its model,
tokenizer...): a flag that some configurations set themselves is named for them, one that all
of them set is refused.

Columns: parameters; training time (wall time of all epochs, validation included); target
tokens/s (non-padding target tokens of one training epoch x epochs / seconds spent in training
steps, validation excluded); the last validation loss; BLEU, chrF (sacreBLEU) and exact match
(built-in data only) of the evaluation sentences (validation split; test split for spa-eng);
decoding sentences/s (the evaluation sources in batches of 64, after a warm-up batch).

Presets (--list shows their configurations):
    api              functional vs subclassed twin of each model, plus subclassed run eagerly
    attention        lstm vs luong-dot/general/concat vs bahdanau vs transformer vs convs2s
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

import sys

from keras_nmt.option_fields import flag_of
from keras_nmt.workshop.arguments import new_parser, non_negative_int
from keras_nmt.workshop.cli.common import (
    add_debug_flag,
    command,
    exit_status,
    start_tensorflow,
)
from keras_nmt.workshop.cli.options import (
    MODEL_DEPENDENT,
    SIZE_OPTIONS,
    TRAIN_FIELDS,
    add_options,
    config_fields,
    options_read_by,
)
from keras_nmt.workshop.comparison.preset import decoding_name
from keras_nmt.workshop.comparison.preset_registry import get_preset, preset_names
from keras_nmt.workshop.run.train_config import TrainConfig

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

    preset, defaults = "the preset's", TrainConfig()
    add_options(parser.add_argument_group(
        "budget (per configuration; the preset's default when not given)"),
        ["epochs", "time_budget"], defaults, preset)
    add_options(parser.add_argument_group("data (the preset's default when not given)"),
                DATA_OPTIONS, defaults, preset)
    add_options(parser.add_argument_group(
        "model sizes and training (the preset's default when not given)"),
        [*SIZE_OPTIONS, "batch_size", "batch_tokens", "learning_rate", "warmup_steps",
         "precision", "seed", "verbose"], defaults, preset)
    add_debug_flag(parser)
    return parser


DATA_OPTIONS = ("data", "source_column", "train_size", "valid_size", "tokenizer", "vocab_size",
                "max_length")


def user_options(args):
    """The `TrainConfig` fields the user set explicitly (they override the preset's defaults)."""
    options = {k: v for k, v in config_fields(args).items() if v is not None}
    if args.verbose is None:
        options["verbose"] = 1 if sys.stdout.isatty() else 2
    if args.time_budget is not None:
        options.setdefault("epochs", EPOCHS_FOR_TIME_BUDGET)
    elif args.epochs is not None:
        options["time_budget"] = None  # an epoch count alone: no wall-clock limit
    return options


def set_by_configurations(preset, args):
    """The flags given that some configurations of `preset` set themselves (what a comparison
    varies, which no flag may erase): `{field: [configuration names]}`."""
    given = [field for field, value in config_fields(args).items() if value is not None]
    names = {field: [c.name for c in preset.configurations if field in c.overrides]
             for field in given}
    return {field: found for field, found in names.items() if found}


def not_read_by_configurations(preset, args):
    """The model and schedule flags given that some configurations of `preset` do not read
    (`options_read_by` of their model): `{field: [configuration names]}`."""
    given = [field for field, value in config_fields(args).items()
             if value is not None and field in MODEL_DEPENDENT]
    read = {}
    for configuration in preset.configurations if given else ():
        try:
            config = configuration.resolve(preset.defaults)
        except ValueError:  # an invalid configuration fails alone, reported in the table
            continue
        read[configuration.name] = options_read_by(config.model, bool(config.init_from))
    names = {field: [name for name, options in read.items() if field not in options]
             for field in given}
    return {field: found for field, found in names.items() if found}


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
            print_fn(f"    decodings: {', '.join(map(decoding_name, preset.decodings))}")


def describe(preset, options):
    """The Markdown header of results.md."""
    # The preset's own values: a configuration may be invalid (it fails alone, reported).
    config = TrainConfig(**{**preset.defaults, **options})
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
    try:
        preset = get_preset(args.preset).select(args.only)
    except ValueError as error:
        parser.error(str(error))
    for field, names in set_by_configurations(preset, args).items():
        flag = flag_of(TRAIN_FIELDS[field])
        if len(names) == len(preset.configurations):
            parser.error(f"{flag} {getattr(args, field)}: every configuration of {preset.name} "
                         "sets it (it is what the comparison varies); leave it out")
        print_fn(f"note: {flag} does not apply to {', '.join(names)}, which set it themselves")
    for field, names in not_read_by_configurations(preset, args).items():
        flag = flag_of(TRAIN_FIELDS[field])
        if len(names) == len(preset.configurations):
            parser.error(f"{flag} {getattr(args, field)}: no configuration of {preset.name} "
                         "reads it (their models do not, so it would be ignored); leave it out")
        print_fn(f"note: {flag} does not apply to {', '.join(names)}, whose models do not read "
                 "it")
    start_tensorflow(args.debug)
    # Imported after parsing: `--help` and flag errors must not wait for TensorFlow.
    from keras_nmt.workshop.comparison.results_record import read_record  # noqa: PLC0415
    from keras_nmt.workshop.comparison.runner import run_comparison  # noqa: PLC0415

    try:
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
