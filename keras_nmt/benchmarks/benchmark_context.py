"""`BenchmarkContext`: the settings of one benchmark run and what its sections share."""

import os
import time
from pathlib import Path

import keras
import numpy as np
import tensorflow as tf

from keras_nmt.benchmarks import QUICK_SENTENCES, QUICK_VOCAB_SIZE
from keras_nmt.data import read_tsv
from keras_nmt.hardware.machine import describe_machine
from keras_nmt.hardware.peak import measure_peak_matmul
from keras_nmt.inference import RunDirectory
from keras_nmt.models.configurations import model_options
from keras_nmt.models.registry import build_model
from keras_nmt.text import make_tokenizer

PIPELINE_FILE = "spa-eng.train.tsv.xz"
TEST_FILE = "spa-eng.test.tsv"
# The training pairs of --quick (a smoke test: the numbers mean nothing).
QUICK_PAIRS = 2000


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
        options: the parsed flags of `keras-nmt benchmark` (an `argparse.Namespace`: `data_dir`,
            `quick`, `seed`, `vocab_size`, `vocab_pairs`, `batch_size`, and each section's own).

    Example:
        >>> context = BenchmarkContext(parse(["--quick"]))  # keras_nmt.cli.benchmark
        >>> records = run_decode(context)
    """

    def __init__(self, options):
        self.options = options
        self._data = None
        self._peaks = {}

    @property
    def vocab_size(self):
        """Subword vocabulary size of both sides (capped under --quick)."""
        if self.options.quick:
            return min(self.options.vocab_size, QUICK_VOCAB_SIZE)
        return self.options.vocab_size

    def environment(self):
        """The fields every record carries: machine, versions, dtype policy, seed."""
        return {
            "machine": describe_machine(),
            "cpu_count": os.cpu_count(),
            "tf_version": tf.__version__,
            "keras_version": keras.__version__,
            "dtype_policy": keras.mixed_precision.global_policy().name,
            "seed": self.options.seed,
            "quick": self.options.quick,
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
            limit = QUICK_PAIRS if self.options.quick else self.options.vocab_pairs
            vocabulary_pairs = train[:limit] if limit else train
            start = time.perf_counter()
            tokenizers = [
                make_tokenizer("subword", vocab_size=self.vocab_size).build(
                    [pair[side] for pair in vocabulary_pairs]
                )
                for side in (0, 1)
            ]
            print(f"{section}: subword vocabularies {tokenizers[0].vocab_size} -> "
                  f"{tokenizers[1].vocab_size} built on {len(vocabulary_pairs):,} pairs in "
                  f"{time.perf_counter() - start:.1f} s (not timed)")
            self._data = (train, test, *tokenizers)
        return self._data

    def peak(self, dtype):
        """The measured peak matmul rate in `dtype` (see `measure_peak_matmul`), once per dtype."""
        size = 256 if self.options.quick else self.options.peak_size
        if dtype not in self._peaks:
            self._peaks[dtype] = measure_peak_matmul(
                dtype, size=size, repeats=3 if self.options.quick else 7
            )
            print(f"  peak {dtype} matmul {size}x{size}: "
                  f"{self._peaks[dtype]['flops_per_second'] / 1e9:,.1f} GFLOP/s (median)")
        return self._peaks[dtype]

    def test_sources(self, test):
        """The source sentences the decode and export sections translate."""
        count = QUICK_SENTENCES if self.options.quick else self.options.decode_sentences
        return [source for source, _ in test[:count]]

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
            run = RunDirectory.load(self.options.run)
            return [(run.config["model"], run.config["api"], run.model, run.source_tokenizer,
                     run.target_tokenizer, self.test_sources(test), "trained")]
        data = self.data(section)
        if data is None:
            return []
        _, test, source_tokenizer, target_tokenizer = data
        sources = self.test_sources(test)
        models = []
        for name in self.options.models:
            for api in self.options.apis:
                keras.utils.set_random_seed(self.options.seed)
                model = build_model(
                    name, api, source_tokenizer.vocab_size, target_tokenizer.vocab_size,
                    self.model_options(name),
                )
                models.append((name, api, model, source_tokenizer, target_tokenizer, sources,
                               "untrained"))
        return models
