"""The TensorFlow benchmark sections by name, what they share, and their Markdown report.

`BenchmarkContext` holds a run's options, and the data and peak rates its sections share;
section "pipeline" is here (it reads the corpus as the context does), "train" and "profile" in
`train_section`, "decode", "export" and "translation" in `translation_section`.
"""

import os
import time
from pathlib import Path

import keras
import numpy as np
import tensorflow as tf

from keras_nmt.data.pipeline import make_dataset, tokenize_pairs
from keras_nmt.models.registry import build_model
from keras_nmt.plural import plural
from keras_nmt.text import make_tokenizer
from keras_nmt.workshop.benchmarks.padding import measure_padding
from keras_nmt.workshop.benchmarks.speed import records_table
from keras_nmt.workshop.benchmarks.train_section import (
    profile_table,
    run_profile,
    run_train,
    train_table,
)
from keras_nmt.workshop.benchmarks.translation_section import (
    decode_table,
    export_table,
    run_decode,
    run_export,
    run_translation,
    translation_table,
)
from keras_nmt.workshop.configurations import model_options
from keras_nmt.workshop.corpora.corpus import read_tsv
from keras_nmt.workshop.hardware.machine import describe_machine, machine_summary
from keras_nmt.workshop.hardware.peak import measure_peak_matmul
from keras_nmt.workshop.run.run_folder import RunFolder

PIPELINE_FILE = "spa-eng.train.tsv.xz"
TEST_FILE = "spa-eng.test.tsv"


def training_pairs(path, seed):
    """The (Spanish, English) pairs of the spa-eng train split at ``path``, in a seeded shuffle.

    The split keeps Tatoeba's order, shortest sentences first (7.1 words per pair in its first
    25,600, 12.4 in all), so the first pairs (the vocabulary's ``--vocab-pairs``, the train
    section's pool of batches) would be short sentences only.
    """
    pairs = read_tsv(path, source_column=1).pairs  # Spanish -> English
    return [pairs[i] for i in np.random.default_rng(seed).permutation(len(pairs))]


class BenchmarkContext:
    """The options of one benchmark run, and the data and peak rates its sections share.

    The spa-eng splits and their subword tokenizers are built on first use and kept for the
    other sections; each matmul peak is measured once per dtype.

    Args:
        options: the parsed flags of `keras-nmt benchmark` (an `argparse.Namespace`).

    Example:
        >>> context = BenchmarkContext(parse(["--quick"]))  # keras_nmt.workshop.cli.benchmark
        >>> records = run_decode(context)
    """

    def __init__(self, options):
        self.options = options
        self._data = None
        self._peaks = {}

    def environment(self):
        """The fields every record carries: machine, versions, dtype policy, seed."""
        return {
            "machine": describe_machine(), "cpu_count": os.cpu_count(),
            "tf_version": tf.__version__, "keras_version": keras.__version__,
            "dtype_policy": keras.mixed_precision.global_policy().name,
            "seed": self.options.seed, "quick": self.options.quick,
        }

    def model_options(self, name):
        """Constructor options of model `name`: the benchmark reference sizes, or --quick's."""
        return model_options(name, "benchmark-quick" if self.options.quick else "benchmark")

    def data(self, section):
        """`(train_pairs, test_pairs, source_tokenizer, target_tokenizer)`, or None (skipped)."""
        data_dir = Path(self.options.data_dir)
        missing = [f for f in (PIPELINE_FILE, TEST_FILE) if not (data_dir / f).exists()]
        if missing:
            print(f"{section}: skipped, {', '.join(missing)} not found in {data_dir} "
                  "(pass --data-dir DIR holding the spa-eng splits)")
            return None
        if self._data is None:
            train = training_pairs(data_dir / PIPELINE_FILE, self.options.seed)
            test = read_tsv(data_dir / TEST_FILE, source_column=1).pairs
            limit = self.options.vocab_pairs
            vocabulary_pairs = train[:limit] if limit else train
            start = time.perf_counter()
            tokenizers = [
                make_tokenizer("subword", vocab_size=self.options.vocab_size).build(
                    [pair[side] for pair in vocabulary_pairs])
                for side in (0, 1)
            ]
            print(f"{section}: subword vocabularies {tokenizers[0].vocab_size} -> "
                  f"{tokenizers[1].vocab_size} built on {plural(len(vocabulary_pairs), 'pair')} in "
                  f"{time.perf_counter() - start:.1f} s (not timed)")
            self._data = (train, test, *tokenizers)
        return self._data

    def peak(self, dtype):
        """The measured peak matmul rate in `dtype` (see `measure_peak_matmul`), once per dtype."""
        size = self.options.peak_size
        if dtype not in self._peaks:
            self._peaks[dtype] = measure_peak_matmul(
                dtype, size=size, repeats=3 if self.options.quick else 7)
            print(f"  peak {dtype} matmul {size}x{size}: "
                  f"{self._peaks[dtype]['flops_per_second'] / 1e9:,.1f} GFLOP/s (median)")
        return self._peaks[dtype]

    def test_sources(self, test):
        """The source sentences the decode, export and translation sections translate."""
        return [source for source, _ in test[: self.options.decode_sentences]]

    def test_pairs(self, section):
        """The spa-eng test pairs, or None (skipped, with a message) when the file is missing."""
        path = Path(self.options.data_dir) / TEST_FILE
        if not path.exists():
            print(f"{section}: skipped, {path} not found (pass --data-dir DIR)")
            return None
        return read_tsv(path, source_column=1).pairs

    def inference_models(self, section):
        """`[(name, api, model, source_tokenizer, target_tokenizer, sources, weights)]`, or [].

        The trained model of --run, or an untrained reference model per --models x --apis.
        """
        if self.options.run:
            test = self.test_pairs(section)
            if test is None:
                return []
            run = RunFolder.load(self.options.run)
            return [(run.config["model"], run.config["api"], run.model, run.source_tokenizer,
                     run.target_tokenizer, self.test_sources(test), "trained")]
        data = self.data(section)
        if data is None:
            return []
        _, test, source_tokenizer, target_tokenizer = data
        models = []
        for name in self.options.models:
            for api in self.options.apis:
                keras.utils.set_random_seed(self.options.seed)
                model = build_model(name, api, source_tokenizer.vocab_size,
                                    target_tokenizer.vocab_size, self.model_options(name))
                models.append((name, api, model, source_tokenizer, target_tokenizer,
                               self.test_sources(test), "untrained"))
        return models


def run_pipeline(context):
    """Tokenize-and-batch pairs/s of `make_dataset` on the spa-eng training split, one record
    per --tokenizers kind: tokenizing the corpus, building the dataset and one epoch (building
    the vocabularies is not timed), then a second epoch apart."""
    args = context.options
    path = Path(args.data_dir) / PIPELINE_FILE
    if not path.exists():
        print(f"pipeline: skipped, {path} not found (pass --data-dir DIR holding {PIPELINE_FILE})")
        return []
    start = time.perf_counter()
    corpus = read_tsv(path, source_column=1)  # Spanish -> English
    read_seconds = time.perf_counter() - start
    limit = args.limit
    pairs = corpus.pairs[:limit] if limit else corpus.pairs
    print(f"pipeline: {corpus.stats.summary()} in {read_seconds:.2f} s; using "
          f"{plural(len(pairs), 'pair')}")
    records = []
    for kind in args.tokenizers:
        options = {"subword": {"vocab_size": args.vocab_size},
                   "word": {"max_vocab": args.vocab_size}}.get(kind, {})
        start = time.perf_counter()
        source_tokenizer, target_tokenizer = (
            make_tokenizer(kind, **options).build([pair[side] for pair in pairs])
            for side in (0, 1))
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
        records.append({
            "section": "pipeline", "tokenizer": kind, "data": str(path),
            "pairs": len(tokenized), "batch_size": args.batch_size, "batches": batches,
            "source_vocab_size": source_tokenizer.vocab_size,
            "target_vocab_size": target_tokenizer.vocab_size,
            "vocabulary_build_seconds": round(build_seconds, 3),
            "tokenize_seconds": round(tokenize_seconds, 3),
            "first_epoch_seconds": round(total_seconds, 3),
            "pairs_per_second": round(len(tokenized) / total_seconds, 1),
            "later_epoch_pairs_per_second": round(len(tokenized) / second_epoch_seconds, 1),
            "padding_fraction": round(padding.padding_fraction, 4),
            **context.environment(),
        })
        print(f"  {kind}: {records[-1]['pairs_per_second']:,.0f} pairs/s "
              f"(vocabulary built in {build_seconds:.1f} s, not counted)")
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


# name -> function(BenchmarkContext) -> JSON records, in the order they run; and -> its table.
SECTIONS = {
    "pipeline": run_pipeline, "train": run_train, "profile": run_profile,
    "decode": run_decode, "export": run_export, "translation": run_translation,
}
TABLES = {
    "pipeline": pipeline_table, "train": train_table, "profile": profile_table,
    "decode": decode_table, "export": export_table, "translation": translation_table,
}


def markdown_report(records):
    """The records (of any sections) as Markdown: one table per section, then the setup."""
    lines = []
    for section, table in TABLES.items():
        chosen = [r for r in records if r["section"] == section]
        if chosen:
            lines += [f"### {section}", "", table(chosen), ""]
    if records:
        r = records[0]
        lines.append(f"{machine_summary(r['machine'])}, TensorFlow {r['tf_version']}, "
                     f"Keras {r.get('keras_version', '?')}, seed {r['seed']}.")
    return "\n".join(lines)
