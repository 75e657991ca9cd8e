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
A model is scored in the direction it translates, whatever the order of the file's columns:
the file is checked against the model (its training data's words, its tokenizers), the column
of the model's source language feeds it, and a line says which. A file that fits neither order
(another language or script) is refused (--accept-data insists), as is a --source-column that
names the column of the model's target language; a header line is skipped, with a warning. A
model trained on the built-in dates is scored on their test split by default; any other model
needs --data.
"""

import sys

from keras_nmt.decoding.decoding_options import COMMON_OPTIONS, GREEDY
from keras_nmt.workshop import markdown
from keras_nmt.workshop.arguments import (
    check_outputs,
    new_parser,
    non_negative_int,
    positive_int,
)
from keras_nmt.workshop.cli.common import (
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
from keras_nmt.workshop.cli.options import add_options
from keras_nmt.workshop.lines import write_lines
from keras_nmt.workshop.output_file import write_json
from keras_nmt.workshop.run.train_config import TrainConfig
from keras_nmt.workshop.timing import time_call


def build_parser(prog=None):
    parser = new_parser(__doc__, prog)
    add_translator_argument(parser)
    parser.add_argument("--weights", default=None,
                        help="a run folder only: score these weights (a .weights.h5 file, "
                        "e.g. MODEL/budget.weights.h5, kept where a --time-budget ran out) in "
                        "place of the trained ones")
    parser.add_argument("--data", default=None,
                        help="test data: a built-in name (its test split), a TSV file "
                        "(.gz/.xz/.zip too) or SOURCE_FILE,TARGET_FILE (default: the built-in "
                        "dates for a model trained on them; any other model needs it)")
    parser.add_argument("--source-column", type=non_negative_int, default=None,
                        help="which column of this file holds the model's source language "
                        "(default: found by checking the file against the model; a column that "
                        "reads like its target language is refused)")
    add_options(parser, ["accept_data"], TrainConfig(), helps={"accept_data": ACCEPT_DATA_HELP})
    parser.add_argument("--test-size", type=positive_int, default=None,
                        help="score N sentences: the built-in data generates N pairs, a file's "
                        "first N source sentences are scored, with all their references (only "
                        "those are held in memory; default: all; built-in: its test size)")
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


class FirstSentences:
    """`load_corpus`'s `keep` for `--test-size N` on a file: holds the pairs whose first side
    is one of the file's first N different first sides, or whose second side one of its first
    N different second sides. Whichever side then feeds the model (`choose_columns`), its first
    N sentences, with every reference they have anywhere in the file, are held in file order,
    so the scores are those of the whole file cut to N sentences, for the memory of N
    sentences (and their repeats) instead of the file's.

    Example:
        >>> keep = FirstSentences(1)
        >>> [keep(i, pair) for i, pair in enumerate([("a", "x"), ("b", "y"), ("a", "z")])]
        [True, False, True]
    """

    def __init__(self, size):
        self.size, self.seen = size, (set(), set())

    def __call__(self, number, pair):
        held = False
        for side, seen in zip(pair, self.seen, strict=True):
            if side not in seen and len(seen) < self.size:
                seen.add(side)
            held = held or side in seen
        return held


def data_to_score(recorded, data):
    """The `--data` to score: the one given, else the built-in dates for a model trained on
    them; any other model has no default test set (`ValueError` asking for `--data`)."""
    if data is not None:
        return data
    if recorded.data == "dates":
        return "dates"
    trained_on = (f"was trained on {recorded.data}" if recorded.data
                  else "records no training data (an import, or an export older than that "
                  "record)" if recorded.kind else "is not a model keras-nmt wrote")
    raise ValueError(f"{recorded.folder} {trained_on}, not the built-in dates: give its test "
                     "set with --data FILE (nothing was written)")


def columns_read(recorded, source_column):
    """The `(source, target)` columns to read a file in first: `--source-column`'s, else the
    ones the model's data was read in (a file laid out as its training data), else 0 and 1.
    `choose_columns` then checks them against the model."""
    if source_column is not None:
        return source_column, None
    return recorded.columns or (0, None)


def column_names(paths, columns):
    """How the two sides read are called in messages: generated sources and targets,
    two files' names (`paths`, the files read), else their columns."""
    if not paths:
        return "the generated sources", "the generated targets"
    if len(paths) == 2:
        return str(paths[0]), str(paths[1])
    source, target = columns
    return f"column {source}", f"column {1 - source if target is None else target}"


@command
def main(argv=None, prog=None):
    parser = build_parser(prog)
    args = parser.parse_args(argv)
    start_tensorflow(args.debug)
    use_parallel_batches(args)
    # It reads the strategy table, which imports Keras.
    check_decoding_flags(parser, args, seed_is_sampling_only=False)
    # Imported after parsing: `--help` and flag errors must not wait for TensorFlow.
    from keras_nmt.decoding.strategies import STRATEGIES  # noqa: PLC0415
    from keras_nmt.workshop.corpora.builtin import BUILTIN_DATASETS  # noqa: PLC0415
    from keras_nmt.workshop.corpora.corpus import corpus_paths, has_splits, load_corpus  # noqa: PLC0415
    from keras_nmt.workshop.evaluation import group_references, score_all  # noqa: PLC0415
    from keras_nmt.workshop.run.run_folder import HYPOTHESES_FILE  # noqa: PLC0415
    from keras_nmt.workshop.translators.column_fit import choose_columns  # noqa: PLC0415
    from keras_nmt.workshop.translators.open_translator import (
        model_data,  # noqa: PLC0415
        open_translator,  # noqa: PLC0415
    )

    recorded = model_data(args.model)
    data = data_to_score(recorded, args.data)
    columns = columns_read(recorded, args.source_column)
    split = "test" if has_splits(data) else None
    # Hypotheses go into a run folder by default, never into an export's folder.
    default_output = recorded.folder / HYPOTHESES_FILE if recorded.kind == "run" else None
    outputs = {"--output": args.output, "--json": args.json}
    check_outputs(outputs, [*corpus_paths(data, split), args.model],
                  replaceable=[default_output] if default_output else [])
    # A file capped by --test-size is read holding only what the cut keeps (`FirstSentences`).
    capped = args.test_size and data not in BUILTIN_DATASETS
    corpus = load_corpus(data, split, size=args.test_size, seed=args.seed,
                         source_column=columns[0], target_column=columns[1],
                         header="keep" if args.accept_data else "skip",
                         keep=FirstSentences(args.test_size) if capped else None)
    if corpus.stats.header_warning():
        print(corpus.stats.header_warning(), file=sys.stderr)
    pairs = corpus.pairs
    if recorded.kind is not None and not args.accept_data:
        # Generated data comes in the model's order: checked, never swapped.
        choice = choose_columns(pairs, recorded, corpus.stats.source,
                                column_names(corpus_paths(data, split), columns),
                                stated=args.source_column is not None,
                                fixed=data in BUILTIN_DATASETS)
        print(choice.line, file=sys.stderr)
        if choice.swapped:
            pairs = [(second, first) for first, second in pairs]
    sources, references = group_references(pairs)
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
    print(markdown.scores_table(scores))
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
