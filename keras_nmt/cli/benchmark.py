"""Measure keras_nmt throughput and print Markdown tables (optionally JSON records and Markdown).

Sections (run all, or some with --only; repeatable or comma-separated):
    pipeline   tokenize-and-batch throughput of keras_nmt.data.make_dataset on the shared
               Spanish->English training split (spa-eng.train.tsv.xz, 114,102 pairs), once per
               tokenizer kind (char, word, subword). Building the vocabularies is not timed; the
               time covers tokenizing the whole corpus, building the dataset and iterating every
               batch of one epoch once.
    train      training throughput (non-padding target tokens per second over --train-steps
               timed train_on_batch steps, after one untimed pass over the fixed batches) of
               every --models x --apis on the `benchmark` reference configuration of
               keras_nmt.models.configurations (recurrent: embedding 256, units 512, one layer;
               Transformer: d_model 256, 3+3 layers, 4 heads, ff 1024),
               --train-batches fixed real batches of --batch-size pairs from the spa-eng train
               split (shuffled with --seed: the file is sorted by length) with subword
               vocabularies of --vocab-size on both sides; for every
               --precisions x --jit-compile; --eager adds run_eagerly for the subclassed twins.
               MFU = model FLOPs per target token (keras_nmt.benchmarks.flops: 2*m*n*k per
               matmul, training = 3 x forward, real tokens only) x tokens/s / the peak matmul
               FLOP/s this same run measures (--peak-size square tf.matmul, median of repeats)
               in the compute dtype.
    profile    where a training step's time goes, per --models x --apis x --precisions on the
               train section's batches and sizes (--train-steps timed steps per part): the
               model compiled four times, each adding one part, timed with test_on_batch /
               train_on_batch: the forward pass (a loss that only averages the logits), the
               training loss and metrics, the backward pass (with dropout and a plain SGD
               update), then Adam with clipnorm (the real step); each part's share of the real
               step, the MFU of the forward and backward passes and of the step, and the
               output projection's share of the forward FLOPs. XLA: the first --jit-compile.
    decode     decoding sentences per second on the spa-eng test sentences (--decode-sentences)
               for greedy and beam search (--beam-sizes), batches of --batch-size, per --models x
               --apis, on UNTRAINED reference models (or the model of --run RUN_DIR). Untrained
               models rarely emit </s>: they decode to the length cap (decoding defaults:
               min(100, ceil(1.5 * source_len + 10))), so the mean output length is reported.
    export     translations per second of the in-process keras_nmt.inference.Translator and of
               its SavedModel (export_translator into a temporary directory, reloaded with
               open_translator), greedy, on the same test sentences, batches of --batch-size;
               the first --models in the first --apis (or --run RUN_DIR).
    translation  needs --run RUN_DIR (a trained model): the first call of each strategy on a
               fresh in-process Translator and on a freshly loaded SavedModel of it (greedy,
               each --beam-sizes, attention), then sentences/s of both (strings in and out,
               batches of --batch-size sorted by length, the warm-up batch timed apart) per beam
               size with the time per sentence against greedy, and the agreement of their outputs
               (the n-best texts), on the spa-eng test sentences (--decode-sentences).

Data-dependent sections are skipped with a message when --data-dir lacks the spa-eng files.
Ratios are only meaningful within one run: the machine's load changes between runs.

Examples:
    keras-nmt benchmark
    keras-nmt benchmark --only pipeline --tokenizers char,subword --output-json bench.json
    keras-nmt benchmark --only train --models lstm,transformer --apis functional \\
        --precisions float32,mixed_bfloat16 --jit-compile off,on --output-md bench.md
    keras-nmt benchmark --only profile --models transformer --precisions float32,auto
    keras-nmt benchmark --only decode,export --run runs/spa-eng --decode-sentences 500
    keras-nmt benchmark --only translation --run runs/spa-eng --beam-sizes 4,8
    keras-nmt benchmark --quick --output-json /tmp/b.json   # tiny sizes: a smoke test
"""

import argparse
import json
import sys
import traceback
from pathlib import Path

from keras_nmt.benchmarks.names import (
    QUICK_SENTENCES,
    QUICK_VOCAB_SIZE,
    SECTION_NAMES,
    TOKENIZER_KINDS,
)
from keras_nmt.cli.common import (
    add_debug_flag,
    command,
    exit_status,
    new_parser,
    positive_int,
    start_tensorflow,
)
from keras_nmt.models.registry import APIS, MODEL_NAMES
from keras_nmt.training.train_config import PRECISIONS

# The shared corpora beside a checkout of the repository (tests and the documented runs).
DEFAULT_DATA_DIR = Path(__file__).resolve().parents[2] / ".." / "shared" / "data"


def _comma_list(cast=str):
    return lambda text: [cast(item.strip()) for item in text.split(",") if item.strip()]


def _on_off(text):
    values = []
    for item in _comma_list()(text):
        if item not in ("on", "off"):
            raise argparse.ArgumentTypeError(f"expected on/off values, got {item!r}")
        values.append(item == "on")
    return values


def build_parser(prog=None):
    parser = new_parser(__doc__, prog)
    parser.add_argument("--only", action="append", default=None, metavar="SECTION",
                        type=_comma_list(),
                        help=f"run only these sections ({', '.join(SECTION_NAMES)}); repeatable or "
                        "comma-separated (default: all sections)")
    parser.add_argument("--seed", type=int, default=0,
                        help="seed of the dataset shuffles and model initializations "
                        "(default: %(default)s)")
    parser.add_argument("--quick", action="store_true",
                        help="tiny sizes for tests and smoke runs: 2,000 pairs, vocabularies of "
                        f"{QUICK_VOCAB_SIZE}, models of width 16-64, 2 timed steps, "
                        f"{QUICK_SENTENCES} test sentences, greedy and beam 2 (numbers are not "
                        "meaningful)")
    parser.add_argument("--data-dir", default=str(DEFAULT_DATA_DIR),
                        help="directory holding the shared corpora (spa-eng.train.tsv.xz, "
                        "spa-eng.test.tsv); sections that need a missing file are skipped with a "
                        "message (default: ../shared/data next to the repository)")
    parser.add_argument("--output-json", default=None, metavar="PATH",
                        help="also write the records (one per measurement, with the machine (CPU "
                        "model, ISA flags, GPUs), os.cpu_count(), "
                        "the TensorFlow and Keras versions, the dtype policy and the "
                        "configuration) to this JSON file")
    parser.add_argument("--output-md", default=None, metavar="PATH",
                        help="also write the Markdown tables to this file")
    parser.add_argument("--batch-size", type=positive_int, default=64,
                        help="pairs (pipeline, train, profile) or sentences (decode, export) per "
                        "batch (default: %(default)s)")
    parser.add_argument("--vocab-size", type=positive_int, default=8000,
                        help="subword vocabulary size of both sides (pipeline: also the word "
                        "vocabulary limit) (default: %(default)s)")
    parser.add_argument("--vocab-pairs", type=positive_int, default=None,
                        help="train/profile/decode/export: build the subword vocabularies on N "
                        "training pairs only, drawn at random with --seed (default: all; "
                        "building is never timed)")
    # pipeline
    parser.add_argument("--tokenizers", default=",".join(TOKENIZER_KINDS), type=_comma_list(),
                        help="pipeline: comma-separated tokenizer kinds to measure "
                        "(default: %(default)s)")
    parser.add_argument("--limit", type=positive_int, default=None,
                        help="pipeline: use only the first N pairs (default: all)")
    # models
    parser.add_argument("--models", default=",".join(MODEL_NAMES), type=_comma_list(),
                        help="train/profile/decode/export: comma-separated models "
                        "(default: %(default)s)")
    parser.add_argument("--apis", default=",".join(APIS), type=_comma_list(),
                        help="train/profile/decode/export: comma-separated APIs; export uses "
                        "the first (default: %(default)s)")
    # train, profile
    parser.add_argument("--train-batches", type=positive_int, default=8,
                        help="train, profile: fixed real batches used in turn; one untimed pass "
                        "over them comes first (tracing, XLA compilation per shape) "
                        "(default: %(default)s)")
    parser.add_argument("--train-steps", type=positive_int, default=20,
                        help="train, profile: timed steps per configuration (profile: per part) "
                        "(default: %(default)s)")
    parser.add_argument("--precisions", default="auto", type=_comma_list(),
                        help="train, profile: comma-separated Keras dtype policies from "
                        f"{', '.join(PRECISIONS)} (auto: the one keras-nmt train would pick on "
                        "this machine); the policy is reset to float32 after each "
                        "configuration (default: %(default)s)")
    parser.add_argument("--batch-tokens", type=positive_int, default=None, metavar="N",
                        help="train, profile: fixed batches of at most N padded source + target "
                        "tokens (keras-nmt train --batch-tokens) instead of --batch-size pairs")
    parser.add_argument("--jit-compile", default="off", type=_on_off,
                        help="train: comma-separated on/off, XLA compilation of the train step "
                        "(profile: the first value) (default: off)")
    parser.add_argument("--eager", action="store_true",
                        help="train: also time the subclassed twins with run_eagerly=True "
                        "(slow: only --eager-steps steps)")
    parser.add_argument("--eager-steps", type=positive_int, default=3,
                        help="train: timed steps of the eager runs (default: %(default)s)")
    parser.add_argument("--same-shape", action="store_true",
                        help="train, profile: pad all fixed batches to one shape (the longest "
                        "source and target among them): one trace and one XLA compilation "
                        "instead of one per shape; tokens/s and FLOPs still count real tokens "
                        "only")
    parser.add_argument("--peak-size", type=positive_int, default=2048,
                        help="train, profile: side of the square matmul measuring the peak "
                        "FLOP/s (default: %(default)s)")
    # decode / export
    parser.add_argument("--decode-sentences", type=positive_int, default=2000,
                        help="decode/export/translation: the first N spa-eng test sentences "
                        "(default: %(default)s)")
    parser.add_argument("--beam-sizes", default="1,4,8", type=_comma_list(int),
                        help="decode/translation: comma-separated beam sizes, 1 = greedy "
                        "(default: %(default)s)")
    parser.add_argument("--run", default=None, metavar="RUN_DIR",
                        help="decode/export: benchmark this trained run directory instead of "
                        "untrained reference models; translation: the run it measures")
    parser.add_argument("--export-repeats", type=positive_int, default=2,
                        help="export: passes over the sentences for each translator, "
                        "alternating, the best kept (default: %(default)s)")
    add_debug_flag(parser)
    return parser  # fmt: skip


def _check(args):
    checks = {
        "tokenizer kinds": (args.tokenizers, TOKENIZER_KINDS),
        "models": (args.models, MODEL_NAMES),
        "APIs": (args.apis, APIS),
        "precisions": (args.precisions, PRECISIONS),
        "sections": (args.only or [], SECTION_NAMES),
    }
    for what, (chosen, known) in checks.items():
        unknown = [item for item in chosen if item not in known]
        if unknown:
            raise SystemExit(f"unknown {what} {unknown}; choose from {', '.join(known)}")
    if any(size < 1 for size in args.beam_sizes):
        raise SystemExit("beam sizes must be >= 1")


def _write_outputs(args, records, table):
    if args.output_json:
        Path(args.output_json).write_text(json.dumps(records, indent=2) + "\n")
    if args.output_md:
        Path(args.output_md).write_text(table + "\n")


@command
def main(argv=None, prog=None):
    args = build_parser(prog).parse_args(argv)
    if args.only:
        args.only = [name for group in args.only for name in group]
    _check(args)
    start_tensorflow(args.debug)
    # Imported after parsing: `--help` and flag errors must not wait for TensorFlow.
    from keras_nmt.benchmarks.benchmark_context import BenchmarkContext  # noqa: PLC0415
    from keras_nmt.benchmarks.sections import SECTIONS, markdown_report  # noqa: PLC0415

    names = [name for name in SECTIONS if not args.only or name in args.only]
    context = BenchmarkContext(args)
    records, failed = [], []
    table = markdown_report(records)
    for name in names:
        try:
            records += SECTIONS[name](context)
        except Exception:  # one failing section must not cost the others' measurements
            traceback.print_exc()
            print(f"{name}: FAILED (traceback above); the other sections go on")
            failed.append(name)
        # Written after every section, so a crash or a kill later keeps what was measured.
        table = markdown_report(records)
        _write_outputs(args, records, table)
    if records:
        print()
        print(table)
    else:
        print("no measurements were made")
    if args.output_json:
        print(f"wrote {len(records)} records to {args.output_json}")
    if args.output_md:
        print(f"wrote the tables to {args.output_md}")
    if failed:
        print(f"failed sections: {', '.join(failed)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(exit_status(main()))

