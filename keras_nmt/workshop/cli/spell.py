"""Spelling correction: train a noisy -> clean corrector, correct text, compare levels and models.

Clean sentences come from --text (one per line, or one column of a tab-separated file); seeded
typing noise (QWERTY neighbour substitutions and insertions, deletions, transpositions, doubled
and dropped double letters, case flips, dropped accents: keras_nmt.workshop.spelling.noise) makes
the inputs. Validation and test sentences are noised once with fixed seeds; training sentences get
fresh noise on every epoch. At the end, train reports on the test pairs the CER/WER of the noisy
input and of the corrected output, the share of already-correct words the model changed, the share
of wrong words it fixed and the share of output words not in the clean training vocabulary
(hallucinations); RUN_FOLDER/spelling.json keeps them. A run folder is a normal one: export it
with keras-nmt export.

Examples:
    keras-nmt spell train --text ../shared/data/spa-eng.train.tsv.xz --source-column 0 \\
        --tokenizer char --train-size 20000 --time-budget 10 --output-dir runs/spell-char
    keras-nmt spell correct runs/spell-char "Tom is lookinf for hte keys."
    echo "I cant belive it" | keras-nmt spell correct runs/spell-char
    keras-nmt spell compare --text ../shared/data/spa-eng.train.tsv.xz --source-column 0 \\
        --time-budget 5 --train-size 20000 --output-dir runs/spell-compare
    keras-nmt spell compare --text ../shared/data/spa-eng.train.tsv.xz --source-column 0 \\
        --tokenizers char --models luong,ctc --time-budget 5 --train-size 20000
"""

import argparse
import dataclasses
import functools
import os
import sys

from keras_nmt.decoding.decoding_options import GREEDY, DecodingOptions
from keras_nmt.special_ids import TOKENIZER_KINDS
from keras_nmt.workshop.arguments import (
    check_outputs,
    new_parser,
    non_negative_int,
    positive_int,
    rate,
    stdio,
)
from keras_nmt.workshop.cli.common import (
    add_debug_flag,
    add_translator_argument,
    check_one_input,
    command,
    exit_status,
    start_tensorflow,
    warn,
    writing_to,
)
from keras_nmt.workshop.cli.options import TRAIN_FIELDS, add_options, config_fields, unread_options
from keras_nmt.workshop.lines import input_lines, iter_lines, write_lines
from keras_nmt.workshop.run.train_config import TrainConfig

# Spelling runs print one line per epoch (a progress bar is rarely worth its output).
DEFAULTS = dataclasses.replace(TrainConfig(), verbose=2)


def add_data_arguments(parser):
    data = parser.add_argument_group("data and noise")
    data.add_argument("--text", required=True,
                      help="clean sentences, one per line (plain, .gz, .xz or .zip)")
    data.add_argument("--source-column", dest="column", type=non_negative_int, default=0,
                      help="0-based column of a tab-separated file; a line without tabs is "
                      "column 0 (Tatoeba files: 0 is English) (default: %(default)s)")
    data.add_argument("--train-size", dest="max_sentences", type=positive_int, default=None,
                      help="use only the first N distinct sentences; the validation and test "
                      "sentences are held out of them (default: all)")
    data.add_argument("--max-chars", type=positive_int, default=None,
                      help="skip sentences longer than this many characters (default: none)")
    data.add_argument("--valid-size", type=positive_int, default=None,
                      help="validation sentences (default: 5%% of the sentences, at most 1,000)")
    data.add_argument("--test-size", type=positive_int, default=None,
                      help="test sentences (default: 5%% of the sentences, at most 1,000)")
    data.add_argument("--noise-rate", type=rate, default=0.3,
                      help="probability that a word gets any noise at all (default: %(default)s)")
    data.add_argument("--noise", default=None,
                      help="per-operation rates inside a touched word, NAME=P,...; NAME is one "
                      "of deletion, insertion, substitution, transposition, doubling, "
                      "dropped_double (per site: letter, letter pair), case, accent (per word); "
                      "unnamed ones keep their defaults (see keras_nmt/workshop/spelling/noise.py)")
    add_options(data, ["vocab_size", "max_length"], DEFAULTS)


def model_names(text):
    """argparse type of --models: comma-separated `TrainConfig.model` choices."""
    choices = TRAIN_FIELDS["model"].metadata["choices"]
    names = [name.strip() for name in text.split(",") if name.strip()]
    unknown = [name for name in names if name not in choices]
    if unknown or not names:
        raise argparse.ArgumentTypeError(
            f"{','.join(unknown) or repr(text)}: not a model; choose from {', '.join(choices)}")
    return names


def add_model_arguments(parser, compare=False):
    model = parser.add_argument_group("model")
    names = ["api", "units", "embedding_dim", "num_layers", "bidirectional", "dropout",
             "d_model", "num_heads", "ff_dim", "upsampling"]
    if compare:
        model.add_argument("--models", type=model_names, default=[DEFAULTS.model],
                           metavar="NAME[,NAME...]",
                           help="comma-separated models, each trained at each token level, e.g. "
                           "luong,ctc: seq2seq against the aligned CTC model (default: "
                           f"{DEFAULTS.model})")
        add_options(model, names, DEFAULTS)
    else:
        add_options(model, ["tokenizer", "model", *names], DEFAULTS)


def add_training_arguments(parser):
    train = parser.add_argument_group("training (each epoch draws new noise)")
    add_options(train, ["epochs", "steps_per_epoch", "time_budget", "batch_size",
                        "learning_rate", "warmup_steps", "seed", "verbose"], DEFAULTS)
    add_options(train, ["beam_size"], GREEDY,
                helps={"beam_size": "beam width for the test corrections; 1 = greedy"})


def build_parser(prog=None):
    parser = new_parser(__doc__, prog)
    commands = parser.add_subparsers(dest="command", required=True)

    train = commands.add_parser("train", help="train a corrector and report on the test pairs",
                                description="Train a corrector; writes a run folder.")
    add_data_arguments(train)
    add_model_arguments(train)
    add_training_arguments(train)
    train.add_argument("--output-dir", dest="output", default=None,
                       help="run folder (default: runs/spell-TOKENIZER-MODEL)")
    train.add_argument("--export", action="store_true",
                       help="export a SavedModel to saved_models/<run name>/<version>/ at the end")

    correct = commands.add_parser(
        "correct", help="correct text with a trained run (or an exported SavedModel)",
        description="Correct sentences: arguments, else --input FILE, else stdin; one output "
        "line per input line.")
    add_translator_argument(correct, "run", trained_by="keras-nmt spell train")
    correct.add_argument("texts", nargs="*", help="sentences to correct")
    correct.add_argument("--input", default=None, type=stdio,
                         help="file of sentences, one per line (plain, .gz, .xz or .zip; - is "
                         "stdin)")
    correct.add_argument("--output", default=None, metavar="FILE", type=stdio,
                         help="write the corrections to FILE (default, or -: stdout)")
    add_options(correct, ["beam_size"], GREEDY, helps={"beam_size": "beam width; 1 = greedy"})
    correct.add_argument("--batch-size", type=positive_int, default=64,
                         help="sentences corrected together (default: %(default)s)")

    compare = commands.add_parser(
        "compare", help="token levels and models on the same noisy data and budget",
        description="Train one corrector per token level and model (OUTPUT_DIR/LEVEL-MODEL) "
        "with the same data, noise and budget; print a Markdown table and write "
        "comparison.json/.csv/.md.")
    add_data_arguments(compare)
    add_model_arguments(compare, compare=True)
    add_training_arguments(compare)
    compare.add_argument("--tokenizers", dest="levels", default=",".join(TOKENIZER_KINDS),
                         help="comma-separated token levels to compare (default: "
                         "%(default)s)")
    compare.add_argument("--output-dir", default="runs/spell-compare",
                         help="one run folder per level and model, and the tables (default: "
                         "%(default)s)")
    for subparser in (train, correct, compare):
        add_debug_flag(subparser)
    return parser


def make_config(args, tokenizer, output):
    """The `TrainConfig` of the flags (options `spell` does not offer keep their defaults)."""
    fields = {k: v for k, v in config_fields(args).items() if k not in ("source_column",)}
    return TrainConfig(**{**fields, "tokenizer": tokenizer, "data": args.text,
                          "source_column": args.column if args.column in (0, 1)
                          else DEFAULTS.source_column, "output": output})


def load_data(args):
    from keras_nmt.workshop.spelling.noise import NoiseGenerator, NoiseRates  # noqa: PLC0415  (after parsing)
    from keras_nmt.workshop.spelling.spelling_data import SpellingData  # noqa: PLC0415

    rates = NoiseRates.parse(args.noise or "")
    generator = NoiseGenerator(rates, args.noise_rate, seed=args.seed)
    return SpellingData.from_file(
        args.text, generator, seed=args.seed, column=args.column,
        max_sentences=args.max_sentences, max_chars=args.max_chars,
        valid_size=args.valid_size, test_size=args.test_size,
    )


def run_train(args):
    from keras_nmt.workshop.spelling.training import train_speller  # noqa: PLC0415
    from keras_nmt.workshop.translators.export_translator import export_translator  # noqa: PLC0415  (after parsing)

    output = args.output or f"runs/spell-{args.tokenizer}-{args.model}"
    config = make_config(args, args.tokenizer, output)
    result, report = train_speller(config, load_data(args),
                                   decoding=DecodingOptions(beam_size=args.beam_size))
    if args.export:
        path = export_translator(result.translator, name=os.path.basename(output.rstrip("/")))
        print(f"exported to {path}")
    return report


def run_correct(args):
    from keras_nmt.workshop.spelling.training import correct_texts  # noqa: PLC0415
    from keras_nmt.workshop.translators.open_translator import open_translator  # noqa: PLC0415  (after parsing)

    typed = not args.texts and not args.input and sys.stdin.isatty()
    # Read (and checked) before the model loads: a wrong file fails at once.
    texts = args.texts if args.texts or typed else input_lines(args.input, warn)
    translator = open_translator(args.run)
    decoding = DecodingOptions(beam_size=args.beam_size)
    if typed:
        stdin = getattr(sys.stdin, "buffer", sys.stdin)
        for line in iter_lines(stdin):  # typed at a terminal: each line as it is entered
            print(correct_texts(translator, [line], decoding, 1)[0], flush=True)
        return None
    corrected = correct_texts(translator, texts, decoding, args.batch_size) if texts else []
    if args.output:
        with writing_to(args.output):
            write_lines(args.output, corrected)
    else:
        for line in corrected:
            print(line.replace("\n", " "))
    return corrected


def run_compare(args):
    from keras_nmt.workshop.spelling.comparison import (  # noqa: PLC0415  (after parsing)
        compare_correctors,
        markdown_table,
        write_comparison,
    )

    levels = [level.strip() for level in args.levels.split(",") if level.strip()]
    config = make_config(args, levels[0], args.output_dir)
    rows = compare_correctors(config, load_data(args), levels, args.models, args.output_dir,
                              decoding=DecodingOptions(beam_size=args.beam_size))
    print(markdown_table(rows))
    for path in write_comparison(rows, args.output_dir):
        print(f"wrote {path}")
    return rows


@command
def main(argv=None, prog=None):
    parser = build_parser(prog)
    args = parser.parse_args(argv)
    unread = None if args.command == "correct" else unread_options(
        args, functools.partial(getattr, DEFAULTS))
    if unread:
        parser.error(unread)
    if args.command == "correct":
        check_one_input(parser, args.texts, args.input)
        check_outputs({"--output": args.output}, [args.input, args.run],
                      reads_stdin=not args.texts and not args.input)
    start_tensorflow(args.debug)
    return {"train": run_train, "correct": run_correct, "compare": run_compare}[args.command](args)


if __name__ == "__main__":
    sys.exit(exit_status(main()))
