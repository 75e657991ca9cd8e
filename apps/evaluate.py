"""Score a trained run directory or an exported SavedModel on a test set.

Prints a table of BLEU and chrF (sacreBLEU, 13a, mixed case, with signatures), CER, WER and exact
match; writes the hypotheses and a JSON report. Repeated source sentences (Tatoeba often has
several translations of one sentence) are merged into one sentence with several references.

Examples:
    python apps/evaluate.py runs/lstm-functional                       # built-in dates test split
    python apps/evaluate.py runs/spa-eng --data ../shared/data/spa-eng.test.tsv --beam-size 5
    python apps/evaluate.py runs/spa-eng --weights runs/spa-eng/budget.weights.h5 \
        --data ../shared/data/spa-eng.test.tsv --beam-size 5
    python apps/evaluate.py saved_models/spa-eng/1 --data ../shared/data/spa-eng.test.tsv
"""

import argparse
import json
import os
import sys
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("KERAS_BACKEND", "tensorflow")
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # finds `apps`

import keras  # noqa: E402

from apps._cli import (  # noqa: E402
    add_debug_flag,
    add_decoding_arguments,
    decoding_options,
    exit_status,
    positive_int,
    user_errors,
)
from keras_nmt.data.corpus import has_splits, load_corpus  # noqa: E402
from keras_nmt.decoding import GREEDY  # noqa: E402
from keras_nmt.inference import open_translator  # noqa: E402
from keras_nmt.inference.run_directory import CONFIG_FILE  # noqa: E402
from keras_nmt.metrics import group_references  # noqa: E402
from keras_nmt.metrics.evaluation import format_table, score_all  # noqa: E402


def build_parser():
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog=__doc__.split("\n\n", 1)[1],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("model", help="a run directory (apps/train.py) or a SavedModel directory")
    parser.add_argument("--weights", default=None,
                        help="a run directory only: score these weights (a .weights.h5 file, "
                        "e.g. MODEL/budget.weights.h5, kept where a --time-budget ran out) in "
                        "place of the trained ones")
    parser.add_argument("--data", default="dates",
                        help="test data: a built-in name (its test split), a TSV file "
                        "(.gz/.xz/.zip too) or SOURCE_FILE,TARGET_FILE (default: %(default)s)")
    parser.add_argument("--source-column", type=int, default=1, choices=[0, 1],
                        help="which TSV column is the source (default: %(default)s)")
    parser.add_argument("--size", type=positive_int, default=None,
                        help="built-in data: number of test pairs (default: its test size)")
    parser.add_argument("--limit", type=positive_int, default=None,
                        help="score only the first N source sentences")
    parser.add_argument("--batch-size", type=positive_int, default=64,
                        help="sentences translated together (default: %(default)s)")
    add_decoding_arguments(parser)
    parser.add_argument("--seed", type=int, default=GREEDY.seed,
                        help="seed for built-in test data and sampling (default: %(default)s)")
    parser.add_argument("--hypotheses", default=None,
                        help="file for the translations, one per line (default: "
                        "MODEL/hypotheses.txt for a run directory, none for a SavedModel)")
    parser.add_argument("--json", default=None, help="file for the JSON report")
    add_debug_flag(parser)
    return parser


@user_errors
def main(argv=None):
    args = build_parser().parse_args(argv)
    split = "test" if has_splits(args.data) else None
    corpus = load_corpus(args.data, split, size=args.size, seed=args.seed,
                         source_column=args.source_column)
    sources, references = group_references(corpus.pairs)
    if args.limit:
        sources, references = sources[: args.limit], references[: args.limit]
    translator = open_translator(args.model, weights=args.weights)
    options = decoding_options(args)
    progress = keras.utils.Progbar(len(sources), unit_name="sentence")
    # The first call traces and optimizes the graph: timed apart from the steady speed.
    start = time.monotonic()
    translator.translate_batch(sources[: args.batch_size], options)
    warmup_seconds = time.monotonic() - start
    start = time.monotonic()
    results = translator.translate_batch(
        sources, options, batch_size=args.batch_size, on_batch=progress.add
    )
    hypotheses = [result.text for result in results]
    seconds = time.monotonic() - start
    scores = score_all(hypotheses, references)
    shown = {"beam_size": args.beam_size, "length_penalty": args.length_penalty}
    if args.sample:
        shown.update(sample=True, temperature=args.temperature, top_k=args.top_k, top_p=args.top_p)
    scores.update(seconds=seconds, sentences_per_second=len(sources) / seconds,
                  warmup_seconds=warmup_seconds, **shown)
    print(format_table(scores))

    hypotheses_path = args.hypotheses
    if hypotheses_path is None and os.path.exists(os.path.join(args.model, CONFIG_FILE)):
        hypotheses_path = os.path.join(args.model, "hypotheses.txt")
    if hypotheses_path:
        with open(hypotheses_path, "w", encoding="utf-8") as stream:
            stream.writelines(h + "\n" for h in hypotheses)
        print(f"hypotheses written to {hypotheses_path}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as stream:
            json.dump(scores, stream, indent=2)
    return scores


if __name__ == "__main__":
    sys.exit(exit_status(main(sys.argv[1:])))
