"""Train a sequence-to-sequence model and write a run folder.

Examples:
    keras-nmt train --model lstm --api functional --output-dir runs/lstm     # built-in dates
    keras-nmt train --model luong --api subclassed --teacher-forcing inverse_sigmoid:300
    keras-nmt train --data my-pairs.tsv --train-size 5000 --time-budget 10   # one TSV file
    keras-nmt train --configuration spa-eng/transformer --data ../shared/data/spa-eng.{split}.tsv \\
        --output-dir runs/spa-eng-transformer
    keras-nmt train --init-from runs/opus-es-en --data my-pairs.tsv --epochs 2 \\
        --output-dir runs/opus-es-en-tuned      # fine-tune an imported model
Re-running the same command resumes an interrupted run exactly; Ctrl-C leaves it resumable.
"""

import dataclasses
import sys
from pathlib import Path

from keras_nmt.workshop import interruption
from keras_nmt.workshop.arguments import add_renamed_flag, new_parser
from keras_nmt.workshop.cli.common import (
    add_debug_flag,
    command,
    exit_status,
    start_tensorflow,
)
from keras_nmt.workshop.cli.options import MODEL_OPTIONS, add_options, unread_options
from keras_nmt.workshop.configurations import ModelOptions
from keras_nmt.workshop.run.train_config import (
    FINE_TUNING_LEARNING_RATE,
    TrainConfig,
    configuration_fields,
    configuration_names,
)

# `verbose` is chosen from the terminal when not given (`main`).
# `output` is named after the model when not given (`main`).
DEFAULTS = dataclasses.replace(TrainConfig(), verbose=None, output=None)


def build_parser(prog=None):
    parser = new_parser(__doc__, prog)
    parser.add_argument("--configuration", choices=configuration_names(), default=None,
                        help="start from a reference configuration: its model, sizes, "
                        "tokenizer, lengths and optimizer settings become the defaults, and the "
                        "flags given here still win (e.g. spa-eng/transformer, the reference "
                        "Transformer; choices: %(choices)s)")
    add_options(parser.add_argument_group("model"), MODEL_OPTIONS, DEFAULTS)
    data = parser.add_argument_group("data and tokenizers")
    add_options(data, ["data", "valid", "source_column", "target_column", "accept_data",
                       "skip_bad_lines",
                       "max_bad_fraction", "train_size", "valid_size", "tokenizer", "vocab_size",
                       "joint_vocabulary", "subword_model", "character_coverage",
                       "sentencepiece_model", "lowercase", "max_length", "languages"], DEFAULTS)
    add_options(parser.add_argument_group("training"), [
        "epochs", "steps_per_epoch", "batch_size", "batch_tokens", "learning_rate",
        "warmup_steps", "clipnorm", "label_smoothing", "teacher_forcing", "patience",
        "run_eagerly", "jit_compile", "precision", "time_budget", "average_checkpoints",
        "average_every", "distribution"], DEFAULTS)
    # --strategy is translate's decoding choice; train's tf.distribute flag is --distribution.
    add_renamed_flag(parser, "--strategy", "--distribution", "tf.distribute")
    run = parser.add_argument_group("run")
    add_options(run, ["init_from", "seed", "output"], DEFAULTS)
    run.add_argument("--fresh", action="store_true",
                     help="delete what an earlier run left in --output-dir (config, tokenizers, "
                     "backup, model) and start again")
    add_options(run, ["backup_every", "validation_sentences", "samples", "verbose"], DEFAULTS)
    run.add_argument("--export", action="store_true",
                     help="export a SavedModel to saved_models/<run name>/<version>/ at the end")
    add_debug_flag(run)
    return parser


def parse(argv=None, prog=None):
    """The `TrainConfig` fields of a command line: flags win, then `--configuration`'s values,
    then those of the run already in `--output-dir` (a flag restating what the run holds is
    accepted, and one left out keeps it), then the program's defaults.

    With `--init-from RUN`, RUN's architecture, tokenizers and languages are the run's (a flag
    that contradicts the architecture or tokenizers is refused) and the learning rate defaults
    to `FINE_TUNING_LEARNING_RATE`.
    """
    parser = build_parser(prog)
    known, _ = parser.parse_known_args(argv)
    if known.configuration and known.init_from:
        parser.error("--configuration and --init-from do not combine: --init-from takes the "
                     "run's architecture")
    existing = {} if known.fresh else existing_run_fields(
        known.output or f"runs/{known.model}-{known.api}", known.debug)
    parser.set_defaults(**existing)
    if known.configuration:
        parser.set_defaults(**configuration_fields(known.configuration))
    inherited = {}
    if known.init_from:
        inherited = initial_run_fields(parser, known.init_from, known.debug)
        parser.set_defaults(**inherited, learning_rate=existing.get(
            "learning_rate", FINE_TUNING_LEARNING_RATE))
    args = parser.parse_args(argv)
    if args.tokenizer == "marian" and not args.init_from:
        parser.error("--tokenizer marian: an imported model's own vocabulary, kept by "
                     "--init-from RUN; a new vocabulary is char, word or subword")
    for name, value in inherited.items():
        if not hasattr(args, name):  # a model option without a flag (e.g. Marian's swish)
            setattr(args, name, value)
        elif getattr(args, name) != value and name not in ("languages",):
            flag = "--" + name.replace("_", "-")
            parser.error(f"{flag} {getattr(args, name)} contradicts --init-from "
                         f"{known.init_from}, whose {name} is {value}")
    unread = unread_options(args, parser.get_default)
    if unread:
        parser.error(unread)
    return args


def existing_run_fields(run_dir, debug):
    """The options of the run already in `run_dir` (its config.json), which a command line
    leaves as they are unless it names them: all but where the output goes and how much is
    printed. Nothing when the folder holds no run (or a damaged config, which the run folder's
    own checks name)."""
    if not (Path(run_dir) / "config.json").is_file():
        return {}  # no run: TensorFlow not loaded yet for flag errors
    # Here, not at the top: the run folder module loads Keras, which `--help` must not wait
    # for; the flags are parsed once (parse_known_args) before this runs, and TensorFlow
    # starts quietly.
    start_tensorflow(debug)
    from keras_nmt.workshop.run.run_folder import CONFIG_FILE, read_run_config  # noqa: PLC0415
    from keras_nmt.workshop.run.run_lifecycle import holds_a_run  # noqa: PLC0415

    if not holds_a_run(run_dir):
        return {}
    try:
        config = read_run_config(Path(run_dir) / CONFIG_FILE)
    except ValueError:
        return {}
    fields = {field.name for field in dataclasses.fields(TrainConfig)} - {"output", "verbose"}
    return {name: value for name, value in config.items() if name in fields}


def initial_run_fields(parser, run_dir, debug=False):
    """The fields of run `run_dir`'s config.json that a run started from it keeps."""
    # Here, not at the top: the run folder module loads Keras, which `--help` must not wait
    # for; the flags are parsed once (parse_known_args) before this runs, and TensorFlow starts
    # quietly (its start-up notes, `failed call to cuInit`, are not the user's business).
    start_tensorflow(debug)
    from keras_nmt.workshop.run.run_folder import (  # noqa: PLC0415
        CONFIG_FILE,
        MODEL_FILE,
        read_run_config,
    )

    path = Path(run_dir) / CONFIG_FILE
    if not (Path(run_dir) / MODEL_FILE).exists() or not path.exists():
        parser.error(f"--init-from {run_dir}: not a finished run folder (no {MODEL_FILE} or "
                     f"{CONFIG_FILE}); import one with keras-nmt import or train one")
    try:
        config = read_run_config(path)
    except ValueError as error:
        parser.error(f"--init-from: {error}")
    # The architecture (every model option but dropout), the tokenizers' options and the
    # languages (which a flag may restate in other codes).
    kept = ["model", "api", *(f.name for f in dataclasses.fields(ModelOptions)),
            "tokenizer", "vocab_size", "lowercase", "joint_vocabulary", "subword_model",
            "character_coverage", "sentencepiece_model", "languages"]
    kept.remove("dropout")
    return {name: config[name] for name in kept
            if name in config and (config[name] is not None or name != "languages")}


def oriented_to_start(config, stated):
    """`config` with its data's columns in the order of the model it starts from
    (`--init-from`): the file is checked against that model (`choose_columns`), the column of
    its source language feeds it, and a line says which; `stated`: `--source-column` was given
    (a contradiction is refused, not swapped)."""
    # After parsing, with TensorFlow loaded (`main`).
    from keras_nmt.workshop.corpora.builtin import BUILTIN_DATASETS  # noqa: PLC0415
    from keras_nmt.workshop.corpora.corpus import corpus_paths, has_splits, load_corpus  # noqa: PLC0415
    from keras_nmt.workshop.translators.column_fit import choose_columns  # noqa: PLC0415
    from keras_nmt.workshop.translators.open_translator import model_data  # noqa: PLC0415

    split = "train" if has_splits(config.data) else None
    corpus = load_corpus(config.data, split, source_column=config.source_column,
                         target_column=config.target_column, on_error="skip", seed=config.seed)
    source = config.source_column
    target = 1 - source if config.target_column is None else config.target_column
    paths = corpus_paths(config.data, split)
    names = ((str(paths[0]), str(paths[1])) if len(paths) == 2
             else (f"column {source}", f"column {target}"))
    choice = choose_columns(corpus.pairs, model_data(config.init_from), config.data, names,
                            stated=stated or len(paths) == 2,
                            fixed=config.data in BUILTIN_DATASETS)
    print(choice.line)
    if not choice.swapped:
        return config
    return dataclasses.replace(config, source_column=target, target_column=(
        None if config.target_column is None else source))


@command
def main(argv=None, prog=None):
    args = parse(argv, prog)
    start_tensorflow(args.debug)
    # Imported after parsing: `--help` and flag errors must not wait for TensorFlow.
    from keras_nmt.workshop.run.run_folder import MODEL_FILE  # noqa: PLC0415
    from keras_nmt.workshop.run.run_lifecycle import (  # noqa: PLC0415
        finished_message,
        finished_record,
        has_backup,
        prepare_run_folder,
        record_languages,
        record_missing_provenance,
    )
    from keras_nmt.workshop.run.trainer import train  # noqa: PLC0415
    from keras_nmt.workshop.translators.export_translator import export_translator  # noqa: PLC0415

    skipped = ("export", "fresh", "debug", "configuration")
    options = {k: v for k, v in vars(args).items() if k not in skipped}
    if options["output"] is None:
        options["output"] = f"runs/{args.model}-{args.api}"
    if options["verbose"] is None:
        options["verbose"] = 1 if sys.stdout.isatty() else 2
    config = TrainConfig(**options)
    run = Path(config.output)
    if not args.fresh and record_languages(config):
        print(f"recorded the languages {config.languages} in {run / 'config.json'} (what "
              "keras-nmt serve offers); the model is unchanged")
        if not has_backup(run) and finished_record(run) is None and (
                run / MODEL_FILE).exists():  # an imported model: nothing to train here
            return None
    if config.init_from and not config.accept_data and not (run / "config.json").exists():
        arguments = sys.argv[1:] if argv is None else list(argv)
        stated = any(a.split("=")[0] in ("--source-column", "--target-column")
                     for a in arguments)
        config = oriented_to_start(config, stated)
    if prepare_run_folder(config, fresh=args.fresh):
        recorded = record_missing_provenance(run)
        if recorded:
            print(f"recorded {recorded}: the fingerprints of {run / MODEL_FILE} and of its "
                  "tokenizers as they are now")
        print(finished_message(config, finished_record(config.output)))
        return None
    # The trainer names what an interruption left once training has begun.
    with interruption.leaving(lambda: "before training began; re-run the same command to start"):
        result = train(config)
    if args.export:
        path = export_translator(config.output)  # named after the run folder
        print(f"exported a SavedModel to {path}")
    return result


if __name__ == "__main__":
    sys.exit(exit_status(main()))
