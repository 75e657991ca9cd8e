"""Benchmark section "train": tokens/s and MFU per model x API x precision x XLA (x eager)."""

import keras
import numpy as np

from keras_nmt import markdown
from keras_nmt.benchmarks.speed import COMPUTE_DTYPES, batch_lengths, train_measurement
from keras_nmt.data import make_dataset
from keras_nmt.models.registry import build_model
from keras_nmt.training.precision import resolve_precision
from keras_nmt.training.train_config import TrainConfig
from keras_nmt.training.trainer import compile_model


def _set_precision(precision):
    keras.mixed_precision.set_global_policy(precision)


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
    records = []
    modes = [(jit, False) for jit in args.jit_compile]
    for precision in dict.fromkeys(resolve_precision(p).policy for p in args.precisions):
        peak = context.peak(COMPUTE_DTYPES[precision])
        for name in args.models:
            options = context.model_options(name)
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
                        result = train_measurement(
                            model, name, batches,
                            min(steps, args.eager_steps) if eager else steps, peak,
                        )
                    except Exception as error:  # one failing configuration must not stop all
                        message = f"{type(error).__name__}: {str(error).strip()[:300]}"
                        print(f"  {name} {api} {precision} jit={jit} eager={eager}: FAILED "
                              f"{message}")
                        records.append({
                            "section": "train", "model": name, "api": api,
                            "precision": precision, "jit_compile": jit, "run_eagerly": eager,
                            "error": message, **context.environment(), "dtype_policy": precision,
                        })
                        continue
                    finally:
                        _set_precision("float32")
                        keras.backend.clear_session()
                    record = {
                        "section": "train", "model": name, "api": api, "precision": precision,
                        "jit_compile": jit, "run_eagerly": eager,
                        "batch_size": args.batch_size, "batch_tokens": args.batch_tokens,
                        "batches": len(batches),
                        "same_shape": args.same_shape,
                        "source_target_ratio": round(float(ratio), 4),
                        **{key: result[key] for key in _MEASURED},
                        **{key: round(result[key], digits) for key, digits in _ROUNDED.items()},
                        "model_options": options,
                        "vocab_sizes": [source_tokenizer.vocab_size, target_tokenizer.vocab_size],
                        **context.environment(),
                        "dtype_policy": precision,
                    }
                    records.append(record)
                    print(f"  {name} {api} {precision} jit={jit} eager={eager}: "
                          f"{record['tokens_per_second']:,.0f} tokens/s, "
                          f"MFU {record['mfu']:.2%} (warm-up {record['warmup_seconds']:.1f} s)")
    return records


# The fields of `train_measurement` a record keeps as they are, and those it rounds.
_MEASURED = ("steps", "warmup_steps", "train_flops_per_token", "achieved_flops_per_second",
             "peak_dtype", "peak_size", "peak_flops_per_second", "mfu", "parameters")
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
    failed = [r for r in records if "error" in r]
    records = [r for r in records if "error" not in r]
    rows = []
    for r in records:
        rows.append([
            r["model"], r["api"], r["precision"], _on(r["jit_compile"]),
            "yes" if r["run_eagerly"] else "no", f"{r['tokens_per_second']:,.0f}",
            f"{r['train_flops_per_token'] / 1e9:.4f}",
            f"{r['achieved_flops_per_second'] / 1e9:,.2f}",
            f"{r['peak_flops_per_second'] / 1e9:,.1f}", f"{r['mfu']:.2%}",
        ])
    for r in failed:
        rows.append([
            r["model"], r["api"], r["precision"], _on(r["jit_compile"]),
            "yes" if r["run_eagerly"] else "no", f"failed: {r['error'][:80]}", "", "", "", "",
        ])
    text = markdown.table(
        ["model", "API", "precision", "XLA", "eager", "tokens/s", "train GFLOP/token", "GFLOP/s",
         "peak GFLOP/s", "MFU"],
        rows, align="lllllrrrrr",
    )
    ratios = _ratio_rows(records)
    if ratios:
        text += "\n\n" + markdown.table(
            ["configuration", "tokens/s ratio", "value"], ratios, align="llr"
        )
    return text
