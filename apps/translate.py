"""Translate sentences with a run directory or an exported SavedModel.

Input: the positional SENTENCE arguments, else --input FILE, else stdin; one sentence per line
(an empty line gives an empty output line). Inputs longer than the model's maximum source length
are truncated, with a warning on stderr. Output: one translation per line; with --n-best N, N
lines per sentence "SENTENCE_NUMBER<TAB>RANK<TAB>SCORE<TAB>TRANSLATION", best first.

Examples:
    python apps/translate.py runs/lstm "3rd of March 2021" "12/04/1999"
    python apps/translate.py saved_models/lstm/1 --beam-size 4 --n-best 3 < dates.txt
    python apps/translate.py runs/luong --input dates.txt --attention-plot plots/
    python apps/translate.py runs/lstm --sample --temperature 0.7 --top-p 0.9 --seed 1 "3/3/21"
"""

import argparse
import os
import sys
from pathlib import Path

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("KERAS_BACKEND", "tensorflow")
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # finds `apps`

from apps._cli import (  # noqa: E402
    add_debug_flag,
    add_decoding_arguments,
    decoding_options,
    positive_int,
    user_errors,
)
from keras_nmt.decoding import GREEDY  # noqa: E402
from keras_nmt.inference import open_translator  # noqa: E402
from keras_nmt.plots import plot_attention  # noqa: E402


def build_parser():
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog=__doc__.split("\n\n", 1)[1],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("model", metavar="MODEL",
                        help="a run directory (apps/train.py) or a SavedModel directory "
                        "(apps/export.py; a model directory uses its highest version)")
    parser.add_argument("sentences", metavar="SENTENCE", nargs="*",
                        help="sentences to translate (default: --input FILE, else stdin)")
    parser.add_argument("--input", metavar="FILE", help="read sentences from FILE, one per line")
    parser.add_argument("--output", metavar="FILE", help="write translations to FILE "
                        "(default: stdout)")
    add_decoding_arguments(parser)
    parser.add_argument("--n-best", type=positive_int, default=GREEDY.n_best,
                        help="translations printed per sentence, at most --beam-size, with rank "
                        "and score (default: %(default)s)")
    parser.add_argument("--seed", type=int, default=GREEDY.seed,
                        help="sampling seed (default: %(default)s)")
    parser.add_argument("--batch-size", type=positive_int, default=64,
                        help="sentences per decoding call (default: %(default)s)")
    parser.add_argument("--attention-plot", metavar="DIR",
                        help="write one attention heatmap PNG per sentence to DIR (greedy "
                        "decoding; models with attention)")
    add_debug_flag(parser)
    return parser


def read_sentences(args):
    """The input lines: arguments, else --input FILE, else stdin (newlines stripped).

    Invalid UTF-8 becomes U+FFFD, from a file and from stdin alike.
    """
    if args.sentences:
        return list(args.sentences)
    if args.input:
        return Path(args.input).read_text(encoding="utf-8", errors="replace").splitlines()
    stdin = getattr(sys.stdin, "buffer", None)  # bytes: the text layer may not be UTF-8 strict
    if stdin is None:
        return sys.stdin.read().splitlines()
    return stdin.read().decode("utf-8", errors="replace").splitlines()


def write_attention_plots(translator, sentences, directory, batch_size, warn):
    """One PNG per sentence in `directory`; returns the paths written."""
    has_attention = getattr(translator, "has_attention", None)
    if has_attention is None:
        has_attention = bool(getattr(getattr(translator, "model", None), "has_attention", False))
    if not has_attention:
        warn("this model has no attention (plain LSTM encoder-decoder): no attention plots")
        return []
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    results = translator.translate_batch(sentences, return_attention=True, batch_size=batch_size)
    paths = []
    for index, result in enumerate(results, start=1):
        if not result.source_tokens or not result.target_tokens:
            warn(f"sentence {index} is empty: no attention plot")
            continue
        path = directory / f"attention_{index:04d}.png"
        plot_attention(result.weights, result.source_tokens, result.target_tokens, path=path,
                       title=result.text)
        paths.append(path)
    return paths


def format_results(results, n_best):
    lines = []
    for number, result in enumerate(results, start=1):
        if n_best == 1:
            lines.append(result.text)
            continue
        for rank, (text, score) in enumerate(zip(result.texts, result.scores, strict=True), 1):
            lines.append(f"{number}\t{rank}\t{score:.4f}\t{text}")
    return lines


@user_errors
def main(argv=None):
    # Intermixed: sentences may follow options (`MODEL --beam-size 4 "a" "b"`).
    args = build_parser().parse_intermixed_args(argv)

    def warn(message):
        print(f"warning: {message}", file=sys.stderr)

    translator = open_translator(args.model)
    sentences = read_sentences(args)
    translator.warn_if_truncated(sentences, warn)
    options = decoding_options(args, n_best=args.n_best)
    results = translator.translate_batch(sentences, options, batch_size=args.batch_size)
    if args.attention_plot:
        write_attention_plots(translator, sentences, args.attention_plot, args.batch_size, warn)
    lines = format_results(results, args.n_best)
    text = "".join(line + "\n" for line in lines)
    if args.output:
        Path(args.output).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
