"""Benchmark section "pipeline": tokenize-and-batch throughput per tokenizer kind."""

import time
from pathlib import Path

from keras_nmt.benchmarks.benchmark_context import PIPELINE_FILE, QUICK_PAIRS
from keras_nmt.benchmarks.speed import records_table
from keras_nmt.data import make_dataset, measure_padding, read_tsv, tokenize_pairs
from keras_nmt.text import make_tokenizer


def run_pipeline(context):
    """Tokenize-and-batch throughput of `make_dataset` on the spa-eng training split.

    Args:
        context: the run's `BenchmarkContext` (--tokenizers, --limit, --batch-size).

    Returns:
        One JSON record per tokenizer kind, or [] when the data is absent.
    """
    args = context.options
    path = Path(args.data_dir) / PIPELINE_FILE
    if not path.exists():
        print(f"pipeline: skipped, {path} not found (pass --data-dir DIR holding {PIPELINE_FILE})")
        return []
    start = time.perf_counter()
    corpus = read_tsv(path, source_column=1)  # Spanish -> English
    read_seconds = time.perf_counter() - start
    limit = args.limit or (QUICK_PAIRS if args.quick else None)
    pairs = corpus.pairs[:limit] if limit else corpus.pairs
    print(f"pipeline: {corpus.stats.summary()} in {read_seconds:.2f} s; using {len(pairs):,} pairs")
    sources = [source for source, _ in pairs]
    targets = [target for _, target in pairs]
    records = []
    for kind in args.tokenizers:
        options = {"vocab_size": context.vocab_size} if kind == "subword" else {}
        if kind == "word":
            options = {"max_vocab": context.vocab_size}
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
                **context.environment(),
            }
        )
        print(
            f"  {kind}: {records[-1]['pairs_per_second']:,.0f} pairs/s "
            f"(vocabulary built in {build_seconds:.1f} s, not counted)"
        )
    return records



def pipeline_table(records):
    """The pipeline records as a Markdown table."""
    return records_table(records, [
        ("tokenizer", "tokenizer", ""), ("pairs", "pairs", ","),
        ("vocab (src/tgt)", lambda r: f"{r['source_vocab_size']:,}/{r['target_vocab_size']:,}",
         "r"),
        ("tokenize s", "tokenize_seconds", ".2f"),
        ("first epoch s", "first_epoch_seconds", ".2f"), ("pairs/s", "pairs_per_second", ",.0f"),
        ("later epochs pairs/s", "later_epoch_pairs_per_second", ",.0f"),
        ("padding", "padding_fraction", ".1%"),
    ])
