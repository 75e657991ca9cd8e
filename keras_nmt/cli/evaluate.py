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
A run folder is scored in the direction it was trained in (its --source-column and
--target-column); a contradicting --source-column is refused.
"""

import os
import sys

from keras_nmt.atomic_file import write_json
from keras_nmt.cli.common import (
    Progress,
    add_debug_flag,
    add_decoding_arguments,
    add_parallel_batches_argument,
    add_translator_argument,
    command,
    decoding_options,
    exit_status,
    new_parser,
    non_negative_int,
    positive_int,
    start_tensorflow,
    use_parallel_batches,
    writing_to,
)
from keras_nmt.cli.options import add_options
from keras_nmt.decoding.decoding_options import GREEDY
from keras_nmt.lines import write_lines
from keras_nmt.timing import time_call


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
                        help="which TSV column is the source (default: the run folder's own, "
                        "else 1; a run folder refuses another)")
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
                        help="file for the translations, one per line (default: "
                        "MODEL/hypotheses.txt for a run folder, none for a SavedModel)")
    parser.add_argument("--json", default=None, help="file for the JSON report")
    add_debug_flag(parser)
    return parser


def run_columns(model, source_column):
    """The (source, target) columns to read: a run folder's own; `source_column` must agree."""
    # After start_tensorflow: run_directory loads Keras.
    from keras_nmt.inference.run_directory import CONFIG_FILE, read_run_config  # noqa: PLC0415

    config_path = os.path.join(model, CONFIG_FILE)
    if not os.path.exists(config_path):
        return (1 if source_column is None else source_column), None
    config = read_run_config(config_path)
    trained = config.get("source_column", 1), config.get("target_column")
    if source_column is not None and source_column != trained[0]:
        raise ValueError(
            f"{config_path}: this run was trained with --source-column {trained[0]}; "
            f"--source-column {source_column} would feed it the other language. Leave the flag "
            "out to use the run's own columns"
        )
    return trained


@command
def main(argv=None, prog=None):
    args = build_parser(prog).parse_args(argv)
    start_tensorflow(args.debug)
    use_parallel_batches(args)
    # Imported after parsing: `--help` and flag errors must not wait for TensorFlow.
    from keras_nmt.data.corpus import has_splits, load_corpus  # noqa: PLC0415
    from keras_nmt.inference import open_translator  # noqa: PLC0415
    from keras_nmt.inference.run_directory import CONFIG_FILE, HYPOTHESES_FILE  # noqa: PLC0415
    from keras_nmt.metrics import group_references  # noqa: PLC0415
    from keras_nmt.metrics.evaluation import format_table, score_all  # noqa: PLC0415

    source_column, target_column = run_columns(args.model, args.source_column)
    split = "test" if has_splits(args.data) else None
    corpus = load_corpus(args.data, split, size=args.test_size, seed=args.seed,
                         source_column=source_column, target_column=target_column)
    sources, references = group_references(corpus.pairs)
    if args.test_size:
        sources, references = sources[: args.test_size], references[: args.test_size]
    translator = open_translator(args.model, weights=args.weights)
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
    if args.sample:
        shown.update(sample=True, temperature=options.temperature, top_k=options.top_k or 0,
                     top_p=options.top_p or 1.0)
    scores.update(seconds=seconds, sentences_per_second=len(sources) / seconds,
                  warmup_seconds=warmup_seconds, **shown)
    print(format_table(scores))
    output = args.output
    if output is None and os.path.exists(os.path.join(args.model, CONFIG_FILE)):
        output = os.path.join(args.model, HYPOTHESES_FILE)
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
