"""Score a trained run folder or an exported SavedModel on a test set.

Prints a table of BLEU and chrF (sacreBLEU, 13a, mixed case, with signatures), CER, WER and exact
match; writes the hypotheses and a JSON report. Repeated source sentences (Tatoeba often has
several translations of one sentence) are merged into one sentence with several references.

Examples:
    keras-nmt evaluate runs/lstm-functional                       # built-in dates test split
    keras-nmt evaluate runs/spa-eng --data ../shared/data/spa-eng.test.tsv --beam-size 5
    keras-nmt evaluate runs/spa-eng --weights runs/spa-eng/budget.weights.h5 \\
        --data ../shared/data/spa-eng.test.tsv --beam-size 5
    keras-nmt evaluate saved_models/spa-eng/1 --data ../shared/data/spa-eng.test.tsv
A model is scored in the direction it was trained in: run folders and exports (SavedModel and
CTranslate2) record the columns they were trained on, and a contradicting --source-column is
refused. A test file that looks reversed, in another language or script than the model's
training data, is refused (--accept-data insists); a header line is skipped, with a warning.
"""

import sys

from keras_nmt.arguments import (
    check_outputs,
    new_parser,
    non_negative_int,
    positive_int,
)
from keras_nmt.atomic_file import write_json
from keras_nmt.cli.common import (
    ACCEPT_DATA_HELP,
    Progress,
    add_debug_flag,
    add_decoding_arguments,
    add_parallel_batches_argument,
    add_translator_argument,
    check_decoding_flags,
    command,
    decoding_options,
    exit_status,
    start_tensorflow,
    use_parallel_batches,
    writing_to,
)
from keras_nmt.cli.options import add_options
from keras_nmt.decoding.decoding_options import COMMON_OPTIONS, GREEDY
from keras_nmt.lines import write_lines
from keras_nmt.timing import time_call
from keras_nmt.training.train_config import TrainConfig


def build_parser(prog=None):
    parser = new_parser(__doc__, prog)
    add_translator_argument(parser)
    parser.add_argument("--weights", default=None,
                        help="a run directory only: score these weights (a .weights.h5 file, "
                        "e.g. MODEL/budget.weights.h5, kept where a --time-budget ran out) in "
                        "place of the trained ones")
    parser.add_argument("--data", default="dates",
                        help="test data: a built-in name (its test split), a TSV file "
                        "(.gz/.xz/.zip too) or SOURCE_FILE,TARGET_FILE (default: %(default)s)")
    parser.add_argument("--source-column", type=non_negative_int, default=None,
                        help="which TSV column is the source (default: the one the model was "
                        "trained on, which run folders and exports record, and which refuses "
                        "another; else 0)")
    add_options(parser, ["accept_data"], TrainConfig(), helps={"accept_data": ACCEPT_DATA_HELP})
    parser.add_argument("--test-size", type=positive_int, default=None,
                        help="score N sentences: the built-in data generates N pairs, a file's "
                        "first N source sentences are scored (default: all; built-in: its "
                        "test size)")
    parser.add_argument("--batch-size", type=positive_int, default=64,
                        help="sentences translated together (default: %(default)s)")
    add_decoding_arguments(parser)
    add_parallel_batches_argument(parser)
    add_options(parser, ["seed"], GREEDY,
                helps={"seed": "seed for built-in test data and sampling"})
    parser.add_argument("--output", default=None, metavar="FILE",
                        help="file for the translations, one per line; never an input, nor a "
                        "file of the model (default: MODEL/hypotheses.txt for a run folder, none "
                        "for an export)")
    parser.add_argument("--json", default=None, help="file for the JSON report")
    add_debug_flag(parser)
    return parser


def data_columns(recorded, source_column):
    """The (source, target) columns to read: the model's own (`ModelData.columns`), else
    `source_column` or 0; a `source_column` that contradicts the model's is refused."""
    if recorded.columns is None:
        return (0 if source_column is None else source_column), None
    if source_column is not None and source_column != recorded.columns[0]:
        raise ValueError(
            f"{recorded.folder}: this model was trained with --source-column "
            f"{recorded.columns[0]}; --source-column {source_column} would feed it the other "
            "language. Leave the flag out to use the model's own columns"
        )
    return recorded.columns


@command
def main(argv=None, prog=None):
    parser = build_parser(prog)
    args = parser.parse_args(argv)
    start_tensorflow(args.debug)
    use_parallel_batches(args)
    # It reads the strategy table, which imports Keras.
    check_decoding_flags(parser, args, seed_is_sampling_only=False)
    # Imported after parsing: `--help` and flag errors must not wait for TensorFlow.
    from keras_nmt.data.corpus import corpus_paths, has_splits, load_corpus  # noqa: PLC0415
    from keras_nmt.data.data_profile import implausibility  # noqa: PLC0415
    from keras_nmt.decoding.strategies import STRATEGIES  # noqa: PLC0415
    from keras_nmt.inference import model_data, open_translator  # noqa: PLC0415
    from keras_nmt.inference.run_directory import HYPOTHESES_FILE  # noqa: PLC0415
    from keras_nmt.metrics import group_references  # noqa: PLC0415
    from keras_nmt.metrics.evaluation import format_table, score_all  # noqa: PLC0415

    recorded = model_data(args.model)
    source_column, target_column = data_columns(recorded, args.source_column)
    split = "test" if has_splits(args.data) else None
    # Hypotheses go into a run folder by default, never into an export's folder.
    default_output = recorded.folder / HYPOTHESES_FILE if recorded.kind == "run" else None
    outputs = {"--output": args.output, "--json": args.json}
    check_outputs(outputs, [*corpus_paths(args.data, split), args.model],
                  replaceable=[default_output] if default_output else [])
    corpus = load_corpus(args.data, split, size=args.test_size, seed=args.seed,
                         source_column=source_column, target_column=target_column,
                         header="keep" if args.accept_data else "skip")
    if corpus.stats.header_warning():
        print(corpus.stats.header_warning(), file=sys.stderr)
    if recorded.profile is not None and not args.accept_data:
        problem = implausibility(corpus.pairs, recorded.profile, corpus.stats.source)
        if problem:
            raise ValueError(f"{problem}; check the file and its columns, or add --accept-data "
                             "to score it as it is")
    sources, references = group_references(corpus.pairs)
    if args.test_size:
        sources, references = sources[: args.test_size], references[: args.test_size]
    translator = open_translator(args.model, weights=args.weights,
                                 parallel=args.parallel_batches)
    options = decoding_options(args)
    progress = Progress(len(sources))
    # The first call traces and optimizes the graph: timed apart from the steady speed.
    timing = time_call(
        lambda: translator.translate_batch(sources, options, batch_size=args.batch_size,
                                           on_batch=progress.add),
        warmup=lambda: translator.translate_batch(sources[: args.batch_size], options))
    hypotheses = [result.text for result in timing.result]
    seconds, warmup_seconds = timing.median, timing.warmup_seconds
    # One speed: the table's sentences_per_second, without the warm-up (warmup_seconds).
    progress.finish(totals=False)
    scores = score_all(hypotheses, references)
    shown = {"beam_size": args.beam_size, "length_penalty": args.length_penalty}
    strategy = options.chosen_strategy
    if strategy not in ("greedy", "beam"):  # then its own options (sampling's temperature...)
        own = [name for name in STRATEGIES[strategy].options if name not in COMMON_OPTIONS]
        shown.update(strategy=strategy, **{name: getattr(options, name) for name in own
                                           if getattr(options, name) is not None})
    scores.update(seconds=seconds, sentences_per_second=len(sources) / seconds,
                  warmup_seconds=warmup_seconds, **shown)
    print(format_table(scores))
    output = args.output or default_output
    if output:
        with writing_to(output):
            write_lines(output, hypotheses)
        print(f"hypotheses written to {output}")
    if args.json:
        with writing_to(args.json):
            write_json(args.json, scores, indent=2)
    return scores


if __name__ == "__main__":
    sys.exit(exit_status(main()))
