"""Measure keras_nmt throughput and print a Markdown table (optionally JSON records).

Sections (run all, or one with --only):
    pipeline   tokenize-and-batch throughput of keras_nmt.data.make_dataset on the shared
               Spanish->English training split (spa-eng.train.tsv.xz, 114,102 pairs), once per
               tokenizer kind (char, word, subword). Building the vocabularies is not timed; the
               time covers tokenizing the whole corpus, building the dataset and iterating every
               batch of one epoch once.

Examples:
    python apps/benchmark.py
    python apps/benchmark.py --only pipeline --tokenizers char,subword --output-json bench.json
    python apps/benchmark.py --limit 20000        # a quicker run on the first 20,000 pairs
"""

import argparse
import json
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("KERAS_BACKEND", "tensorflow")

REPO = Path(__file__).resolve().parents[1]
DEFAULT_DATA_DIR = REPO / ".." / "shared" / "data"
PIPELINE_FILE = "spa-eng.train.tsv.xz"
TOKENIZER_KINDS = ("char", "word", "subword")


def _environment():
    import tensorflow as tf

    return {"cpu_count": os.cpu_count(), "tf_version": tf.__version__}


def run_pipeline(args):
    """Section "pipeline": returns one record per tokenizer kind, or [] when the data is absent."""
    from keras_nmt.data import make_dataset, measure_padding, read_tsv, tokenize_pairs
    from keras_nmt.text import make_tokenizer

    path = Path(args.data_dir) / PIPELINE_FILE
    if not path.exists():
        print(f"pipeline: skipped, {path} not found (pass --data-dir DIR holding {PIPELINE_FILE})")
        return []
    start = time.perf_counter()
    corpus = read_tsv(path, source_column=1)  # Spanish -> English
    read_seconds = time.perf_counter() - start
    pairs = corpus.pairs[: args.limit] if args.limit else corpus.pairs
    print(f"pipeline: {corpus.stats.summary()} in {read_seconds:.2f} s; using {len(pairs):,} pairs")
    sources = [source for source, _ in pairs]
    targets = [target for _, target in pairs]
    records = []
    for kind in args.tokenizers:
        options = {"vocab_size": args.vocab_size} if kind == "subword" else {}
        if kind == "word":
            options = {"max_vocab": args.vocab_size}
        start = time.perf_counter()
        source_tokenizer = make_tokenizer(kind, **options).build(sources)
        target_tokenizer = make_tokenizer(kind, **options).build(targets)
        build_seconds = time.perf_counter() - start

        start = time.perf_counter()
        tokenized = tokenize_pairs(pairs, source_tokenizer, target_tokenizer)
        tokenize_seconds = time.perf_counter() - start
        dataset = make_dataset(tokenized, batch_size=args.batch_size, seed=args.seed)
        batches = sum(1 for _ in dataset)
        total_seconds = time.perf_counter() - start
        start = time.perf_counter()
        padding = measure_padding(dataset)  # a second epoch, counted separately
        second_epoch_seconds = time.perf_counter() - start
        records.append(
            {
                "section": "pipeline",
                "tokenizer": kind,
                "data": str(path),
                "pairs": len(tokenized),
                "batch_size": args.batch_size,
                "batches": batches,
                "source_vocab_size": source_tokenizer.vocab_size,
                "target_vocab_size": target_tokenizer.vocab_size,
                "vocabulary_build_seconds": round(build_seconds, 3),
                "tokenize_seconds": round(tokenize_seconds, 3),
                "first_epoch_seconds": round(total_seconds, 3),
                "pairs_per_second": round(len(tokenized) / total_seconds, 1),
                "later_epoch_pairs_per_second": round(len(tokenized) / second_epoch_seconds, 1),
                "padding_fraction": round(padding.padding_fraction, 4),
                "seed": args.seed,
                **_environment(),
            }
        )
        print(
            f"  {kind}: {records[-1]['pairs_per_second']:,.0f} pairs/s "
            f"(vocabulary built in {build_seconds:.1f} s, not counted)"
        )
    return records


# name -> function(args) -> list of JSON records; later sections register here.
SECTIONS = {
    "pipeline": run_pipeline,
}


def markdown_table(records):
    """The pipeline records as a Markdown table."""
    lines = [
        "| section | tokenizer | pairs | vocab (src/tgt) | tokenize s | first epoch s | pairs/s "
        "| later epochs pairs/s | padding |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in records:
        lines.append(
            f"| {r['section']} | {r['tokenizer']} | {r['pairs']:,} | "
            f"{r['source_vocab_size']:,}/{r['target_vocab_size']:,} | "
            f"{r['tokenize_seconds']:.2f} | "
            f"{r['first_epoch_seconds']:.2f} | {r['pairs_per_second']:,.0f} | "
            f"{r['later_epoch_pairs_per_second']:,.0f} | {r['padding_fraction']:.1%} |"
        )
    if records:
        lines.append("")
        lines.append(
            f"CPU count {records[0]['cpu_count']}, TensorFlow {records[0]['tf_version']}, "
            f"batch size {records[0]['batch_size']}, seed {records[0]['seed']}."
        )
    return "\n".join(lines)


def build_parser():
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog=__doc__.split("\n\n", 1)[1],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--only", choices=sorted(SECTIONS), default=None,
                        help="run only this section (default: all sections)")
    parser.add_argument("--seed", type=int, default=0,
                        help="seed of the dataset shuffles (default: %(default)s)")
    parser.add_argument("--data-dir", default=str(DEFAULT_DATA_DIR),
                        help="directory holding the shared corpora; sections that need a missing "
                        "file are skipped with a message (default: ../shared/data next to the "
                        "repository)")
    parser.add_argument("--output-json", default=None, metavar="PATH",
                        help="also write the records (one per measurement, with os.cpu_count() "
                        "and the TensorFlow version) to this JSON file")
    parser.add_argument("--tokenizers", default=",".join(TOKENIZER_KINDS),
                        type=lambda text: [kind.strip() for kind in text.split(",") if kind],
                        help="pipeline: comma-separated tokenizer kinds to measure "
                        "(default: %(default)s)")
    parser.add_argument("--vocab-size", type=int, default=8000,
                        help="pipeline: subword vocabulary size, and the word vocabulary limit "
                        "(default: %(default)s)")
    parser.add_argument("--batch-size", type=int, default=64,
                        help="pipeline: pairs per batch (default: %(default)s)")
    parser.add_argument("--limit", type=int, default=None,
                        help="pipeline: use only the first N pairs (default: all)")
    return parser  # fmt: skip


def main(argv=None):
    args = build_parser().parse_args(argv)
    unknown = [kind for kind in args.tokenizers if kind not in TOKENIZER_KINDS]
    if unknown:
        raise SystemExit(f"unknown tokenizer kinds {unknown}; choose from {TOKENIZER_KINDS}")
    names = [args.only] if args.only else list(SECTIONS)
    records = []
    for name in names:
        records += SECTIONS[name](args)
    if records:
        print()
        print(markdown_table(records))
    else:
        print("no measurements were made")
    if args.output_json:
        Path(args.output_json).write_text(json.dumps(records, indent=2) + "\n")
        print(f"wrote {len(records)} records to {args.output_json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
