"""Measure keras_nmt throughput and print Markdown tables (optionally JSON records and Markdown).

Sections (run all, or some with --only; repeatable or comma-separated):
    pipeline   tokenize-and-batch throughput of keras_nmt.data.make_dataset on the shared
               Spanish->English training split (spa-eng.train.tsv.xz, 114,102 pairs), once per
               tokenizer kind (char, word, subword). Building the vocabularies is not timed; the
               time covers tokenizing the whole corpus, building the dataset and iterating every
               batch of one epoch once.
    train      training throughput (non-padding target tokens per second over --train-steps
               timed train_on_batch steps, after one untimed pass over the fixed batches) of
               every --models x --apis on the reference configuration (recurrent: embedding
               256, units 512; Transformer: d_model 256, 3+3 layers, 4 heads, ff 1024),
               --train-batches fixed real batches of --batch-size pairs from the spa-eng train
               split with subword vocabularies of --vocab-size on both sides; for every
               --precisions x --jit-compile; --eager adds run_eagerly for the subclassed twins.
               MFU = model FLOPs per target token (keras_nmt.benchmarks.flops: 2*m*n*k per
               matmul, training = 3 x forward, real tokens only) x tokens/s / the peak matmul
               FLOP/s this same run measures (--peak-size square tf.matmul, median of repeats)
               in the compute dtype.
    decode     decoding sentences per second on the spa-eng test sentences (--decode-sentences)
               for greedy and beam search (--beam-sizes), batches of --batch-size, per --models x
               --apis, on UNTRAINED reference models (or the model of --run RUN_DIR). Untrained
               models rarely emit </s>: they decode to the length cap (decoding defaults:
               min(100, ceil(1.5 * source_len + 10))), so the mean output length is reported.
    export     translations per second of the in-process keras_nmt.export.Translator and of
               its SavedModel (export_translator into a temporary directory, reloaded with
               open_translator), greedy, on the same test sentences, batches of --batch-size;
               the first --models in the first --apis (or --run RUN_DIR).

Data-dependent sections are skipped with a message when --data-dir lacks the spa-eng files.
Ratios are only meaningful within one run: the machine's load changes between runs.

Examples:
    python apps/benchmark.py
    python apps/benchmark.py --only pipeline --tokenizers char,subword --output-json bench.json
    python apps/benchmark.py --only train --models lstm,transformer --apis functional \\
        --precisions float32,mixed_bfloat16 --jit-compile off,on --output-md bench.md
    python apps/benchmark.py --only decode,export --run runs/spa-eng --decode-sentences 500
    python apps/benchmark.py --quick --output-json /tmp/b.json   # tiny sizes: a smoke test
"""

import argparse
import json
import os
import sys
import tempfile
import time
import traceback
from pathlib import Path

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("KERAS_BACKEND", "tensorflow")

from apps._cli import positive_int  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
DEFAULT_DATA_DIR = REPO / ".." / "shared" / "data"
PIPELINE_FILE = "spa-eng.train.tsv.xz"
TEST_FILE = "spa-eng.test.tsv"
TOKENIZER_KINDS = ("char", "word", "subword")
PRECISIONS = ("float32", "mixed_bfloat16", "mixed_float16")
COMPUTE_DTYPES = {"float32": "float32", "mixed_bfloat16": "bfloat16", "mixed_float16": "float16"}

# The reference configuration (issue 9) and the tiny one of --quick.
REFERENCE_OPTIONS = {
    "embedding_dim": 256, "units": 512, "d_model": 256, "num_layers": 3, "num_heads": 4,
    "ff_dim": 1024,
}
QUICK_OPTIONS = {
    "embedding_dim": 16, "units": 32, "d_model": 32, "num_layers": 1, "num_heads": 2,
    "ff_dim": 64,
}
QUICK_VOCAB_SIZE = 300
QUICK_PAIRS = 2000
QUICK_SENTENCES = 16


def _vocab_size(args):
    return min(args.vocab_size, QUICK_VOCAB_SIZE) if args.quick else args.vocab_size


def _environment(args):
    import keras
    import tensorflow as tf

    return {
        "cpu_count": os.cpu_count(),
        "tf_version": tf.__version__,
        "keras_version": keras.__version__,
        "dtype_policy": keras.mixed_precision.global_policy().name,
        "seed": args.seed,
        "quick": args.quick,
    }


def _model_options(args, name):
    """Constructor options of model `name` (reference or --quick sizes; Transformer: 3+3 layers)."""
    options = dict(QUICK_OPTIONS if args.quick else REFERENCE_OPTIONS)
    if name != "transformer":
        options["num_layers"] = 1  # the reference recurrent models have one layer per side
    return options


class _Data:
    """The spa-eng splits and subword tokenizers, built once and shared by the sections."""

    cache = {}

    @classmethod
    def get(cls, args, section):
        """`(train_pairs, test_pairs, source_tokenizer, target_tokenizer)`, or None (skipped)."""
        from keras_nmt.data import read_tsv
        from keras_nmt.text import make_tokenizer

        data_dir = Path(args.data_dir)
        missing = [f for f in (PIPELINE_FILE, TEST_FILE) if not (data_dir / f).exists()]
        if missing:
            print(f"{section}: skipped, {', '.join(missing)} not found in {data_dir} "
                  "(pass --data-dir DIR holding the spa-eng splits)")
            return None
        if "data" not in cls.cache:
            train = read_tsv(data_dir / PIPELINE_FILE, source_column=1).pairs  # Spanish -> English
            test = read_tsv(data_dir / TEST_FILE, source_column=1).pairs
            limit = QUICK_PAIRS if args.quick else args.vocab_pairs
            vocabulary_pairs = train[:limit] if limit else train
            start = time.perf_counter()
            tokenizers = [
                make_tokenizer("subword", vocab_size=_vocab_size(args)).build(
                    [pair[side] for pair in vocabulary_pairs]
                )
                for side in (0, 1)
            ]
            print(f"{section}: subword vocabularies {tokenizers[0].vocab_size} -> "
                  f"{tokenizers[1].vocab_size} built on {len(vocabulary_pairs):,} pairs in "
                  f"{time.perf_counter() - start:.1f} s (not timed)")
            cls.cache["data"] = (train, test, *tokenizers)
        return cls.cache["data"]


def _set_precision(precision):
    import keras

    keras.mixed_precision.set_global_policy(precision)


def _peak(args, dtype, cache={}):  # noqa: B006 (a per-run memo of the measured peaks)
    from keras_nmt.benchmarks import measure_peak_matmul

    size = 256 if args.quick else args.peak_size
    if dtype not in cache:
        cache[dtype] = measure_peak_matmul(dtype, size=size, repeats=3 if args.quick else 7)
        print(f"  peak {dtype} matmul {size}x{size}: "
              f"{cache[dtype]['flops_per_second'] / 1e9:,.1f} GFLOP/s (median)")
    return cache[dtype]


def _train_batches(args, train, source_tokenizer, target_tokenizer):
    from keras_nmt.data import make_dataset

    # Batches drawn from a shuffled, bucketed epoch of the first pairs: real length mixtures.
    count = 2 if args.quick else args.train_batches
    pool = train[: max(args.batch_size * count * 50, 1)]
    dataset = make_dataset(
        pool, source_tokenizer, target_tokenizer, batch_size=args.batch_size, seed=args.seed,
        max_length=100,
    )
    batches = [batch for _, batch in zip(range(count), dataset, strict=False)]
    if args.same_shape:
        batches = _pad_to_common_shape(batches)
    return batches


def _pad_to_common_shape(batches):
    """Pads every batch to the longest source and target length among them (one shape)."""
    import numpy as np

    source = max(inputs["encoder_tokens"].shape[1] for inputs, _ in batches)
    target = max(targets.shape[1] for _, targets in batches)

    def pad(x, length):
        x = np.asarray(x)
        return np.pad(x, [(0, 0), (0, length - x.shape[1])])

    return [
        (
            {"encoder_tokens": pad(inputs["encoder_tokens"], source),
             "decoder_tokens": pad(inputs["decoder_tokens"], target)},
            pad(targets, target),
        )
        for inputs, targets in batches
    ]


def run_train(args):
    """Section "train": tokens/s and MFU per model x API x precision x XLA (x eager)."""
    import keras

    from keras_nmt.benchmarks.flops import training_flops
    from keras_nmt.benchmarks.train_speed import batch_lengths, measure_train_speed
    from keras_nmt.models.registry import build_model
    from keras_nmt.training.train_config import TrainConfig
    from keras_nmt.training.trainer import compile_model

    data = _Data.get(args, "train")
    if data is None:
        return []
    train, _, source_tokenizer, target_tokenizer = data
    batches = _train_batches(args, train, source_tokenizer, target_tokenizer)
    source_lengths, target_lengths = batch_lengths(batches)
    ratio = source_lengths.sum() / target_lengths.sum()
    print(f"train: {len(batches)} fixed batches of {args.batch_size}: "
          f"{target_lengths.sum():,} target tokens, source/target token ratio {ratio:.2f}")
    steps = 2 if args.quick else args.train_steps
    records = []
    modes = [(jit, False) for jit in args.jit_compile]
    for precision in args.precisions:
        peak = _peak(args, COMPUTE_DTYPES[precision])
        for name in args.models:
            options = _model_options(args, name)
            for api in args.apis:
                runs = list(modes)
                if args.eager and api == "subclassed":
                    runs.append((False, True))
                for jit, eager in runs:
                    _set_precision(precision)
                    keras.utils.set_random_seed(args.seed)
                    try:
                        model = build_model(
                            name, api, source_tokenizer.vocab_size, target_tokenizer.vocab_size,
                            options,
                        )
                        config = TrainConfig(
                            model=name, api=api, jit_compile=jit, run_eagerly=eager,
                            precision=precision, **options,
                        )
                        compile_model(model, config)
                        result = measure_train_speed(
                            model, batches, steps=min(steps, args.eager_steps) if eager else steps
                        )
                        per_token = training_flops(
                            name, model.get_config(), source_lengths, target_lengths
                        ) / target_lengths.sum()
                    except Exception as error:  # one failing configuration must not stop all
                        message = f"{type(error).__name__}: {str(error).strip()[:300]}"
                        print(f"  {name} {api} {precision} jit={jit} eager={eager}: FAILED "
                              f"{message}")
                        records.append({
                            "section": "train", "model": name, "api": api,
                            "precision": precision, "jit_compile": jit, "run_eagerly": eager,
                            "error": message, **_environment(args), "dtype_policy": precision,
                        })
                        continue
                    finally:
                        _set_precision("float32")
                        keras.backend.clear_session()
                    achieved = per_token * result["tokens_per_second"]
                    record = {
                        "section": "train", "model": name, "api": api, "precision": precision,
                        "jit_compile": jit, "run_eagerly": eager,
                        "batch_size": args.batch_size, "batches": len(batches),
                        "same_shape": args.same_shape,
                        "source_target_ratio": round(float(ratio), 4),
                        "tokens_per_second": round(result["tokens_per_second"], 2),
                        "steps": result["steps"], "seconds": round(result["seconds"], 3),
                        "warmup_steps": result["warmup_steps"],
                        "warmup_seconds": round(result["warmup_seconds"], 3),
                        "median_step_seconds": round(
                            sorted(result["step_seconds"])[len(result["step_seconds"]) // 2], 4
                        ),
                        "train_flops_per_token": per_token,
                        "achieved_flops_per_second": achieved,
                        "peak_dtype": peak["dtype"], "peak_size": peak["size"],
                        "peak_flops_per_second": peak["flops_per_second"],
                        "mfu": achieved / peak["flops_per_second"],
                        "parameters": int(model.count_params()),
                        "model_options": options,
                        "vocab_sizes": [source_tokenizer.vocab_size, target_tokenizer.vocab_size],
                        **_environment(args),
                        "dtype_policy": precision,
                    }
                    records.append(record)
                    print(f"  {name} {api} {precision} jit={jit} eager={eager}: "
                          f"{record['tokens_per_second']:,.0f} tokens/s, "
                          f"MFU {record['mfu']:.2%} (warm-up {record['warmup_seconds']:.1f} s)")
    return records


def _source_batches(tokenizer, texts, batch_size):
    from keras_nmt.special_ids import PAD_ID

    batches = []
    for start in range(0, len(texts), batch_size):
        ragged = tokenizer.tokenize(texts[start : start + batch_size])
        batches.append(ragged.to_tensor(default_value=PAD_ID).numpy())
    return batches


def _test_sources(args, test):
    sentences = QUICK_SENTENCES if args.quick else args.decode_sentences
    return [source for source, _ in test[:sentences]]


def _inference_models(args, section):
    """`[(name, api, model, source_tokenizer, target_tokenizer, test_sources)]`, or []."""
    import keras

    from keras_nmt.models.registry import build_model

    if args.run:
        from keras_nmt.data import read_tsv
        from keras_nmt.training.run_directory import RunDirectory

        path = Path(args.data_dir) / TEST_FILE
        if not path.exists():
            print(f"{section}: skipped, {path} not found (pass --data-dir DIR)")
            return []
        test = read_tsv(path, source_column=1).pairs
        run = RunDirectory.load(args.run)
        return [(run.config.model, run.config.api, run.model, run.source_tokenizer,
                 run.target_tokenizer, _test_sources(args, test), "trained")]
    data = _Data.get(args, section)
    if data is None:
        return []
    _, test, source_tokenizer, target_tokenizer = data
    sources = _test_sources(args, test)
    models = []
    for name in args.models:
        for api in args.apis:
            keras.utils.set_random_seed(args.seed)
            model = build_model(
                name, api, source_tokenizer.vocab_size, target_tokenizer.vocab_size,
                _model_options(args, name),
            )
            models.append((name, api, model, source_tokenizer, target_tokenizer, sources,
                           "untrained"))
    return models


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
    limit = args.limit or (2000 if args.quick else None)
    pairs = corpus.pairs[:limit] if limit else corpus.pairs
    print(f"pipeline: {corpus.stats.summary()} in {read_seconds:.2f} s; using {len(pairs):,} pairs")
    sources = [source for source, _ in pairs]
    targets = [target for _, target in pairs]
    records = []
    for kind in args.tokenizers:
        options = {"vocab_size": _vocab_size(args)} if kind == "subword" else {}
        if kind == "word":
            options = {"max_vocab": _vocab_size(args)}
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
                **_environment(args),
            }
        )
        print(
            f"  {kind}: {records[-1]['pairs_per_second']:,.0f} pairs/s "
            f"(vocabulary built in {build_seconds:.1f} s, not counted)"
        )
    return records




def run_decode(args):
    """Section "decode": sentences/s of greedy and beam search per model (untrained or --run)."""
    from keras_nmt.benchmarks.decode_speed import measure_decode_speed

    records = []
    beam_sizes = [1, 2] if args.quick else args.beam_sizes
    for name, api, model, source_tokenizer, _, sources, state in _inference_models(args, "decode"):
        batches = _source_batches(source_tokenizer, sources, args.batch_size)
        for beam_size in beam_sizes:
            if beam_size == 1:
                result = measure_decode_speed(model, batches, "greedy")
            else:
                result = measure_decode_speed(model, batches, "beam", beam_size=beam_size)
            record = {
                "section": "decode", "model": name, "api": api, "weights": state,
                "strategy": "greedy" if beam_size == 1 else "beam", "beam_size": beam_size,
                "batch_size": args.batch_size,
                "sentences_per_second": round(result["sentences_per_second"], 2),
                "ms_per_sentence": round(1000 / result["sentences_per_second"], 3),
                "sentences": result["sentences"], "seconds": round(result["seconds"], 3),
                "mean_output_length": round(result["mean_output_length"], 2),
                "max_output_length": result["max_output_length"],
                "mean_source_length": round(
                    float(sum((b != 0).sum() for b in batches)) / result["sentences"], 2
                ),
                "warmup_seconds": round(result["warmup_seconds"], 3),
                **_environment(args),
            }
            records.append(record)
            print(f"  {name} {api} beam {beam_size}: {record['sentences_per_second']:,.1f} "
                  f"sentences/s, mean output length {record['mean_output_length']}")
    greedy = {(r["model"], r["api"]): r for r in records if r["beam_size"] == 1}
    for record in records:
        base = greedy.get((record["model"], record["api"]))
        if base:
            record["time_ratio_to_greedy"] = round(
                record["ms_per_sentence"] / base["ms_per_sentence"], 3
            )
    return records


def run_export(args):
    """Section "export": SavedModel vs in-process Translator translations/s (greedy)."""
    from keras_nmt.export import Translator, export_translator, open_translator
    from keras_nmt.export.speed import measure_translation_speed

    models = _inference_models(args, "export")
    if not args.run:
        models = models[:1] and [m for m in models if m[1] == args.apis[0]][:1]
    records = []
    for name, api, model, source_tokenizer, target_tokenizer, sources, state in models:
        translator = Translator(model, source_tokenizer, target_tokenizer)
        with tempfile.TemporaryDirectory() as directory:
            start = time.perf_counter()
            path = export_translator(translator, base_dir=directory, name=name)
            export_seconds = time.perf_counter() - start
            saved = open_translator(path)
            repeats = 1 if args.quick else args.export_repeats
            # Alternate the two so that load changes on a shared machine hit both alike.
            in_process, exported = [], []
            for _ in range(repeats):
                for target, results in ((translator, in_process), (saved, exported)):
                    results.append(measure_translation_speed(
                        target, sources, batch_size=args.batch_size, repeats=1
                    )["sentences_per_second"])
        record = {
            "section": "export", "model": name, "api": api, "weights": state,
            "strategy": "greedy", "batch_size": args.batch_size, "sentences": len(sources),
            "in_process_sentences_per_second": round(max(in_process), 2),
            "saved_model_sentences_per_second": round(max(exported), 2),
            "saved_over_in_process": round(max(exported) / max(in_process), 3),
            "repeats": repeats, "export_seconds": round(export_seconds, 2),
            **_environment(args),
        }
        records.append(record)
        print(f"  {name} {api}: in-process {record['in_process_sentences_per_second']:,.1f}, "
              f"SavedModel {record['saved_model_sentences_per_second']:,.1f} sentences/s "
              f"(ratio {record['saved_over_in_process']:.2f})")
    return records


# name -> function(args) -> list of JSON records.
SECTIONS = {
    "pipeline": run_pipeline,
    "train": run_train,
    "decode": run_decode,
    "export": run_export,
}


def _pipeline_table(records):
    lines = [
        "| tokenizer | pairs | vocab (src/tgt) | tokenize s | first epoch s | pairs/s "
        "| later epochs pairs/s | padding |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in records:
        lines.append(
            f"| {r['tokenizer']} | {r['pairs']:,} | "
            f"{r['source_vocab_size']:,}/{r['target_vocab_size']:,} | "
            f"{r['tokenize_seconds']:.2f} | "
            f"{r['first_epoch_seconds']:.2f} | {r['pairs_per_second']:,.0f} | "
            f"{r['later_epoch_pairs_per_second']:,.0f} | {r['padding_fraction']:.1%} |"
        )
    return lines


def _train_key(r, **changes):
    key = {k: r[k] for k in ("model", "api", "precision", "jit_compile", "run_eagerly")}
    key.update(changes)
    return tuple(sorted(key.items()))


def _on(flag):
    return "on" if flag else "off"


def _train_table(records):
    lines = [
        "| model | API | precision | XLA | eager | tokens/s | train GFLOP/token | GFLOP/s "
        "| peak GFLOP/s | MFU |",
        "|---|---|---|---|---|---:|---:|---:|---:|---:|",
    ]
    failed = [r for r in records if "error" in r]
    records = [r for r in records if "error" not in r]
    for r in records:
        lines.append(
            f"| {r['model']} | {r['api']} | {r['precision']} | {_on(r['jit_compile'])} | "
            f"{'yes' if r['run_eagerly'] else 'no'} | {r['tokens_per_second']:,.0f} | "
            f"{r['train_flops_per_token'] / 1e9:.4f} | "
            f"{r['achieved_flops_per_second'] / 1e9:,.2f} | "
            f"{r['peak_flops_per_second'] / 1e9:,.1f} | {r['mfu']:.2%} |"
        )
    by_key = {_train_key(r): r for r in records}
    ratios = []
    for r in records:
        label = f"{r['model']} {r['api']} {r['precision']} XLA {_on(r['jit_compile'])}"
        pairs = []
        if r["precision"] != "float32" and not r["run_eagerly"]:
            base = by_key.get(_train_key(r, precision="float32"))
            pairs.append((f"{r['precision']} / float32", base))
        if r["jit_compile"]:
            pairs.append(("XLA on / off", by_key.get(_train_key(r, jit_compile=False))))
        if r["api"] == "subclassed" and not r["run_eagerly"]:
            pairs.append(("subclassed / functional", by_key.get(_train_key(r, api="functional"))))
        if r["run_eagerly"]:
            pairs.append(("eager / compiled", by_key.get(_train_key(r, run_eagerly=False))))
        for what, base in pairs:
            if base:
                value = r["tokens_per_second"] / base["tokens_per_second"]
                ratios.append(f"| {label} | {what} | {value:.2f} |")
    for r in failed:
        lines.append(f"| {r['model']} | {r['api']} | {r['precision']} | {_on(r['jit_compile'])} | "
                     f"{'yes' if r['run_eagerly'] else 'no'} | failed: {r['error'][:80]} ||||")
    if ratios:
        lines += ["", "| configuration | tokens/s ratio | value |", "|---|---|---:|", *ratios]
    return lines


def _decode_table(records):
    lines = [
        "| model | API | weights | strategy | sentences/s | ms/sentence | time / greedy "
        "| mean output length | mean source length |",
        "|---|---|---|---|---:|---:|---:|---:|---:|",
    ]
    for r in records:
        strategy = "greedy" if r["beam_size"] == 1 else f"beam {r['beam_size']}"
        ratio = r.get("time_ratio_to_greedy")
        lines.append(
            f"| {r['model']} | {r['api']} | {r['weights']} | {strategy} | "
            f"{r['sentences_per_second']:,.1f} | {r['ms_per_sentence']:.2f} | "
            f"{'' if ratio is None else f'{ratio:.2f}'} | {r['mean_output_length']:.1f} | "
            f"{r['mean_source_length']:.1f} |"
        )
    return lines


def _export_table(records):
    lines = [
        "| model | API | weights | sentences | in-process sentences/s | SavedModel sentences/s "
        "| SavedModel / in-process |",
        "|---|---|---|---:|---:|---:|---:|",
    ]
    for r in records:
        lines.append(
            f"| {r['model']} | {r['api']} | {r['weights']} | {r['sentences']:,} | "
            f"{r['in_process_sentences_per_second']:,.1f} | "
            f"{r['saved_model_sentences_per_second']:,.1f} | {r['saved_over_in_process']:.2f} |"
        )
    return lines


_TABLES = {
    "pipeline": _pipeline_table,
    "train": _train_table,
    "decode": _decode_table,
    "export": _export_table,
}


def markdown_table(records):
    """The records as Markdown: one table per section (and the train ratios), then the setup."""
    lines = []
    for section, table in _TABLES.items():
        chosen = [r for r in records if r["section"] == section]
        if chosen:
            lines += [f"### {section}", "", *table(chosen), ""]
    if records:
        r = records[0]
        lines.append(
            f"CPU count {r['cpu_count']}, TensorFlow {r['tf_version']}, "
            f"Keras {r.get('keras_version', '?')}, seed {r['seed']}."
        )
    return "\n".join(lines)


def _comma_list(cast=str):
    return lambda text: [cast(item.strip()) for item in text.split(",") if item.strip()]


def _on_off(text):
    values = []
    for item in _comma_list()(text):
        if item not in ("on", "off"):
            raise argparse.ArgumentTypeError(f"expected on/off values, got {item!r}")
        values.append(item == "on")
    return values


def build_parser():
    from keras_nmt.models.registry import APIS, MODEL_NAMES

    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog=__doc__.split("\n\n", 1)[1],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--only", action="append", default=None, metavar="SECTION",
                        type=_comma_list(),
                        help=f"run only these sections ({', '.join(SECTIONS)}); repeatable or "
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
                        help="also write the records (one per measurement, with os.cpu_count(), "
                        "the TensorFlow and Keras versions, the dtype policy and the "
                        "configuration) to this JSON file")
    parser.add_argument("--output-md", default=None, metavar="PATH",
                        help="also write the Markdown tables to this file")
    parser.add_argument("--batch-size", type=positive_int, default=64,
                        help="pairs (pipeline, train) or sentences (decode, export) per batch "
                        "(default: %(default)s)")
    parser.add_argument("--vocab-size", type=positive_int, default=8000,
                        help="subword vocabulary size of both sides (pipeline: also the word "
                        "vocabulary limit) (default: %(default)s)")
    parser.add_argument("--vocab-pairs", type=positive_int, default=None,
                        help="train/decode/export: build the subword vocabularies on the first N "
                        "training pairs only (default: all; building is never timed)")
    # pipeline
    parser.add_argument("--tokenizers", default=",".join(TOKENIZER_KINDS), type=_comma_list(),
                        help="pipeline: comma-separated tokenizer kinds to measure "
                        "(default: %(default)s)")
    parser.add_argument("--limit", type=positive_int, default=None,
                        help="pipeline: use only the first N pairs (default: all)")
    # models
    parser.add_argument("--models", default=",".join(MODEL_NAMES), type=_comma_list(),
                        help="train/decode/export: comma-separated models (default: %(default)s)")
    parser.add_argument("--apis", default=",".join(APIS), type=_comma_list(),
                        help="train/decode/export: comma-separated APIs; export uses the first "
                        "(default: %(default)s)")
    # train
    parser.add_argument("--train-batches", type=positive_int, default=8,
                        help="train: fixed real batches used in turn; one untimed pass over them "
                        "comes first (tracing, XLA compilation per shape) (default: %(default)s)")
    parser.add_argument("--train-steps", type=positive_int, default=20,
                        help="train: timed train_on_batch steps per configuration "
                        "(default: %(default)s)")
    parser.add_argument("--precisions", default="float32", type=_comma_list(),
                        help="train: comma-separated Keras dtype policies from "
                        f"{', '.join(PRECISIONS)}; the policy is reset to float32 after each "
                        "configuration (default: %(default)s)")
    parser.add_argument("--jit-compile", default="off", type=_on_off,
                        help="train: comma-separated on/off, XLA compilation of the train step "
                        "(default: off)")
    parser.add_argument("--eager", action="store_true",
                        help="train: also time the subclassed twins with run_eagerly=True "
                        "(slow: only --eager-steps steps)")
    parser.add_argument("--eager-steps", type=positive_int, default=3,
                        help="train: timed steps of the eager runs (default: %(default)s)")
    parser.add_argument("--same-shape", action="store_true",
                        help="train: pad all fixed batches to one shape (the longest source and "
                        "target among them): one trace and one XLA compilation instead of one "
                        "per shape; tokens/s and FLOPs still count real tokens only")
    parser.add_argument("--peak-size", type=positive_int, default=2048,
                        help="train: side of the square matmul measuring the peak FLOP/s "
                        "(default: %(default)s)")
    # decode / export
    parser.add_argument("--decode-sentences", type=positive_int, default=2000,
                        help="decode/export: the first N spa-eng test sentences "
                        "(default: %(default)s)")
    parser.add_argument("--beam-sizes", default="1,4,8", type=_comma_list(int),
                        help="decode: comma-separated beam sizes, 1 = greedy "
                        "(default: %(default)s)")
    parser.add_argument("--run", default=None, metavar="RUN_DIR",
                        help="decode/export: benchmark this trained run directory instead of "
                        "untrained reference models")
    parser.add_argument("--export-repeats", type=positive_int, default=2,
                        help="export: passes over the sentences for each translator, "
                        "alternating, the best kept (default: %(default)s)")
    return parser  # fmt: skip


def _check(args):
    from keras_nmt.models.registry import APIS, MODEL_NAMES

    checks = {
        "tokenizer kinds": (args.tokenizers, TOKENIZER_KINDS),
        "models": (args.models, MODEL_NAMES),
        "APIs": (args.apis, APIS),
        "precisions": (args.precisions, PRECISIONS),
        "sections": (args.only or [], tuple(SECTIONS)),
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


def main(argv=None):
    args = build_parser().parse_args(argv)
    if args.only:
        args.only = [name for group in args.only for name in group]
    _check(args)
    names = [name for name in SECTIONS if not args.only or name in args.only]
    records, failed = [], []
    table = markdown_table(records)
    for name in names:
        try:
            records += SECTIONS[name](args)
        except Exception:  # one failing section must not cost the others' measurements
            traceback.print_exc()
            print(f"{name}: FAILED (traceback above); the other sections go on")
            failed.append(name)
        # Written after every section, so a crash or a kill later keeps what was measured.
        table = markdown_table(records)
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
    sys.exit(main())
