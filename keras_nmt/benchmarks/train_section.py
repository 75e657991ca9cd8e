"""Benchmark section "train": tokens/s and MFU per model x API x precision x XLA (x eager)."""

import itertools

import keras
import numpy as np

from keras_nmt import markdown
from keras_nmt.benchmarks.speed import (
    COMPUTE_DTYPES,
    batch_lengths,
    error_text,
    records_table,
    train_measurement,
)
from keras_nmt.data import make_dataset
from keras_nmt.models.registry import build_model
from keras_nmt.training.precision import resolve_precision
from keras_nmt.training.train_config import TrainConfig
from keras_nmt.training.trainer import compile_model


def fixed_batches(context, section):
    """`(batches, source_tokenizer, target_tokenizer)` the train and profile sections time.

    The `--train-batches` batches (`--batch-size` pairs or `--batch-tokens`, `--same-shape`), or
    None when the data is missing (`context.data` says so).
    """
    data = context.data(section)
    if data is None:
        return None
    train, _, source_tokenizer, target_tokenizer = data
    args = context.options
    # Drawn from a shuffled, bucketed epoch of the first pairs of the (shuffled) split: real
    # length mixtures.
    count = 2 if args.quick else args.train_batches
    pool = train[: max(args.batch_size * count * 50, 1)]
    dataset = make_dataset(
        pool, source_tokenizer, target_tokenizer, batch_size=args.batch_size, seed=args.seed,
        max_length=100, batch_tokens=args.batch_tokens,
    )
    batches = [batch for _, batch in zip(range(count), dataset, strict=False)]
    if args.same_shape:
        batches = _pad_to_common_shape(batches)
    return batches, source_tokenizer, target_tokenizer


def _pad_to_common_shape(batches):
    """Pads every batch to the longest source and target length among them (one shape)."""
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


def measure_configurations(context, section, runs, measure):
    """One record per --precisions x --models x --apis x `runs(api)`; a failure is a record too.

    Args:
        context: the run's `BenchmarkContext`.
        section: the records' `section`.
        runs: `runs(api) -> [dict, ...]`, the settings measured per API (e.g. `jit_compile`).
        measure: `measure(head, options, peak) -> record`, run under the precision's dtype
            policy: `head` holds the section, model, API, precision and the run's settings,
            `options` the model's constructor options, `peak` the matmul peak of the compute
            dtype. An exception becomes a record with an `error` (one failing configuration
            must not stop the others).
    """
    args = context.options
    records = []
    for precision in dict.fromkeys(resolve_precision(p).policy for p in args.precisions):
        peak = context.peak(COMPUTE_DTYPES[precision])
        for name, api in itertools.product(args.models, args.apis):
            options = context.model_options(name)
            for run in runs(api):
                head = {"section": section, "model": name, "api": api, "precision": precision,
                        **run}
                keras.mixed_precision.set_global_policy(precision)
                keras.utils.set_random_seed(args.seed)
                try:
                    record = measure(head, options, peak)
                except Exception as error:
                    record = {**head, "error": error_text(error)}
                    print(f"  {' '.join(map(str, head.values()))}: FAILED {record['error']}")
                finally:
                    keras.mixed_precision.set_global_policy("float32")
                    keras.backend.clear_session()
                records.append({**record, **context.environment(), "dtype_policy": precision})
    return records


def run_train(context):
    """Training tokens/s and MFU per model x API x precision x XLA (x eager).

    Args:
        context: the run's `BenchmarkContext` (--models, --apis, --precisions, --jit-compile,
            --eager, --train-batches, --train-steps, --same-shape, --peak-size).

    Returns:
        One JSON record per configuration (with an `error` when it failed).
    """
    args = context.options
    fixed = fixed_batches(context, "train")
    if fixed is None:
        return []
    batches, source_tokenizer, target_tokenizer = fixed
    source_lengths, target_lengths = batch_lengths(batches)
    ratio = source_lengths.sum() / target_lengths.sum()
    size = f"<= {args.batch_tokens} tokens" if args.batch_tokens else args.batch_size
    print(f"train: {len(batches)} fixed batches of {size}: "
          f"{target_lengths.sum():,} target tokens, source/target token ratio {ratio:.2f}")
    steps = 2 if args.quick else args.train_steps
    vocab_sizes = [source_tokenizer.vocab_size, target_tokenizer.vocab_size]

    def runs(api):
        eager = [(False, True)] if args.eager and api == "subclassed" else []
        return [{"jit_compile": jit, "run_eagerly": run_eagerly}
                for jit, run_eagerly in [(jit, False) for jit in args.jit_compile] + eager]

    def measure(head, options, peak):
        name, eager = head["model"], head["run_eagerly"]
        model = build_model(name, head["api"], *vocab_sizes, options)
        compile_model(model, TrainConfig(model=name, api=head["api"],
                                         jit_compile=head["jit_compile"], run_eagerly=eager,
                                         precision=head["precision"], **options))
        result = train_measurement(model, name, batches,
                                   min(steps, args.eager_steps) if eager else steps, peak)
        record = {
            **head, "batch_size": args.batch_size, "batch_tokens": args.batch_tokens,
            "batches": len(batches), "same_shape": args.same_shape,
            "source_target_ratio": round(float(ratio), 4),
            **{k: round(v, _ROUNDED[k]) if k in _ROUNDED else v for k, v in result.items()},
            "model_options": options, "vocab_sizes": vocab_sizes,
        }
        print(f"  {' '.join(map(str, head.values()))}: {record['tokens_per_second']:,.0f} "
              f"tokens/s, MFU {record['mfu']:.2%} (warm-up {record['warmup_seconds']:.1f} s)")
        return record

    return measure_configurations(context, "train", runs, measure)


# The fields of `train_measurement` a record rounds (to these digits).
_ROUNDED = {"tokens_per_second": 2, "seconds": 3, "warmup_seconds": 3, "median_step_seconds": 4}


def _train_key(r, **changes):
    key = {k: r[k] for k in ("model", "api", "precision", "jit_compile", "run_eagerly")}
    key.update(changes)
    return tuple(sorted(key.items()))


def _on(flag):
    return "on" if flag else "off"


def _ratio_rows(records):
    """`[label, what, value]` of every ratio between configurations that differ in one flag."""
    by_key = {_train_key(r): r for r in records}
    rows = []
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
                rows.append([label, what, f"{value:.2f}"])
    return rows


def train_table(records):
    """The train records as a Markdown table, failures last, then the table of ratios."""
    text = records_table(records, [
        ("model", "model", ""), ("API", "api", ""), ("precision", "precision", ""),
        ("XLA", lambda r: _on(r["jit_compile"]), ""),
        ("eager", lambda r: "yes" if r["run_eagerly"] else "no", ""),
        ("tokens/s", "tokens_per_second", ",.0f"),
        ("train GFLOP/token", lambda r: f"{r['train_flops_per_token'] / 1e9:.4f}", "r"),
        ("GFLOP/s", lambda r: f"{r['achieved_flops_per_second'] / 1e9:,.2f}", "r"),
        ("peak GFLOP/s", lambda r: f"{r['peak_flops_per_second'] / 1e9:,.1f}", "r"),
        ("MFU", "mfu", ".2%"),
    ], head=5)
    ratios = _ratio_rows([r for r in records if "error" not in r])
    if ratios:
        text += "\n\n" + markdown.table(
            ["configuration", "tokens/s ratio", "value"], ratios, align="llr"
        )
    return text
