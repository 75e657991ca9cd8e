"""Benchmark sections "train" and "profile": a training step's speed, and where its time goes.

"train" (`run_train`): real target tokens/s and MFU per model x API x precision x XLA (x eager)
on fixed batches of the spa-eng split.

"profile" (`run_profile`): four copies of each model (same seed, same weights) compiled so that
each adds one part of the training step (`PARTS`): `test_on_batch` with a loss that only averages
the logits (the forward pass, no dropout); with the training loss and metrics; `train_on_batch`
with plain SGD (the backward pass and dropout); as `compile_model` sets it up (Adam, clipnorm:
the real step). They run in turn on every timed batch, so that a change of the machine's load
hits all alike (timed one after the other, the SGD step once measured 1.4x the Adam step on an
idle machine); the differences of consecutive mean step times are each part's share (noise can
make a small share negative). Each pass's MFU divides its model FLOPs (forward; backward: twice
that; the step: three times) by its time and the matmul peak; the output projection's share of
the forward FLOPs shows what a cheaper vocabulary layer could save.
"""

import itertools
from functools import partial

import keras
import numpy as np
from keras import ops

from keras_nmt.data.pipeline import make_dataset
from keras_nmt.models.flops import dense_flops
from keras_nmt.models.registry import build_model
from keras_nmt.training.fit import compile_model, loss_and_metrics
from keras_nmt.workshop import markdown
from keras_nmt.workshop.benchmarks.flops import forward_flops
from keras_nmt.workshop.benchmarks.speed import (
    COMPUTE_DTYPES,
    batch_lengths,
    configuration_record,
    records_table,
    train_measurement,
)
from keras_nmt.workshop.run.precision import resolve_precision
from keras_nmt.workshop.run.train_config import TrainConfig
from keras_nmt.workshop.timing import time_in_turn

# The shares of the real step, in the order the four compilations add them.
PARTS = ("forward", "loss and metrics", "backward", "Adam and clipnorm")
# The fields of `train_measurement` a record rounds (to these digits).
_ROUNDED = {"tokens_per_second": 2, "seconds": 3, "warmup_seconds": 3, "mean_step_seconds": 4}


def fixed_batches(context, section):
    """`(batches, source_tokenizer, target_tokenizer)` the train and profile sections time.

    The `--train-batches` batches (`--batch-size` pairs or `--batch-tokens`, `--same-shape`) of
    a shuffled, bucketed epoch of the first pairs of the shuffled split (real length mixtures),
    or None when the data is missing (`context.data` says so).
    """
    data = context.data(section)
    if data is None:
        return None
    train, _, source_tokenizer, target_tokenizer = data
    args = context.options
    count = args.train_batches
    dataset = make_dataset(
        train[: max(args.batch_size * count * 50, 1)], source_tokenizer, target_tokenizer,
        batch_size=args.batch_size, seed=args.seed, max_length=100, batch_tokens=args.batch_tokens,
    )
    batches = [batch for _, batch in zip(range(count), dataset, strict=False)]
    if args.same_shape:  # every batch padded to the longest source and target among them
        source = max(np.shape(inputs["encoder_tokens"])[1] for inputs, _ in batches)
        target = max(np.shape(targets)[1] for _, targets in batches)
        pad = lambda x, n: np.pad(np.asarray(x), [(0, 0), (0, n - np.shape(x)[1])])  # noqa: E731
        batches = [({"encoder_tokens": pad(inputs["encoder_tokens"], source),
                     "decoder_tokens": pad(inputs["decoder_tokens"], target)},
                    pad(targets, target)) for inputs, targets in batches]
    return batches, source_tokenizer, target_tokenizer


def measure_configurations(context, section, runs, measure):
    """One record per --precisions x --models x --apis x `runs(api)`; a failure is a record too.

    Args:
        context: the run's `BenchmarkContext`.
        section: the records' `section`.
        runs: `runs(api) -> [dict, ...]`, the settings measured per API (e.g. `jit_compile`).
        measure: `measure(head, options, peak) -> dict` of the record's measured fields, run by
            `speed.configuration_record`: `head` holds the section, model, API, precision and
            the run's settings, `options` the model's constructor options, `peak` the matmul
            peak of the compute dtype.
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
                record = configuration_record(head, precision, args.seed,
                                              partial(measure, head, options, peak))
                if "error" in record:
                    print(f"  {' '.join(map(str, head.values()))}: FAILED {record['error']}")
                records.append({**record, **context.environment(), "dtype_policy": precision})
    return records


def run_train(context):
    """Training tokens/s and MFU per model x API x precision x XLA (x eager); one record each."""
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
    steps = args.train_steps
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
            "batch_size": args.batch_size, "batch_tokens": args.batch_tokens,
            "batches": len(batches), "same_shape": args.same_shape,
            "source_target_ratio": round(float(ratio), 4),
            **{k: round(v, _ROUNDED[k]) if k in _ROUNDED else v for k, v in result.items()},
            "model_options": options, "vocab_sizes": vocab_sizes,
        }
        print(f"  {' '.join(map(str, head.values()))}: {record['tokens_per_second']:,.0f} "
              f"tokens/s, MFU {record['mfu']:.2%} (warm-up {record['warmup_seconds']:.1f} s)")
        return record

    return measure_configurations(context, "train", runs, measure)


def _on(flag):
    return "on" if flag else "off"


def train_table(records):
    """The train records as a Markdown table, failures last, then the ratios of the
    configurations that differ in one flag."""
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
    flags = ("model", "api", "precision", "jit_compile", "run_eagerly")
    key = lambda r, **changes: tuple({**{k: r[k] for k in flags}, **changes}.items())  # noqa: E731
    measured = [r for r in records if "error" not in r]
    by_key = {key(r): r for r in measured}
    rows = []
    for r in measured:
        pairs = []
        if r["precision"] != "float32" and not r["run_eagerly"]:
            pairs.append((f"{r['precision']} / float32", key(r, precision="float32")))
        if r["jit_compile"]:
            pairs.append(("XLA on / off", key(r, jit_compile=False)))
        if r["api"] == "subclassed" and not r["run_eagerly"]:
            pairs.append(("subclassed / functional", key(r, api="functional")))
        if r["run_eagerly"]:
            pairs.append(("eager / compiled", key(r, run_eagerly=False)))
        rows += [[f"{r['model']} {r['api']} {r['precision']} XLA {_on(r['jit_compile'])}", what,
                  f"{r['tokens_per_second'] / by_key[base]['tokens_per_second']:.2f}"]
                 for what, base in pairs if base in by_key]
    if rows:
        text += "\n\n" + markdown.table(["configuration", "tokens/s ratio", "value"], rows,
                                        align="llr")
    return text


def logit_mean(y_true, y_pred):
    """A loss that reads every logit for one reduction, so the forward pass cannot be pruned."""
    del y_true
    return ops.mean(y_pred)


def profile_step(build, config, batches, steps):
    """Mean seconds per step of the four cumulative compilations (module docstring).

    Args:
        build: `build() -> model`, a new uncompiled copy of the model at each call.
        config: its `TrainConfig` (model, recipe, `jit_compile`).
        batches: `[(inputs, targets), ...]`; timed step `i` runs on `batches[i % len(batches)]`.
        steps: timed steps of each compilation.

    Returns:
        `[forward, + loss and metrics, + backward, real step]` mean seconds per step.
    """
    real = build()
    compile_model(real, config)
    calls = []
    for loss in (logit_mean, None, None):  # plain SGD; None: the training loss and metrics
        model = build()
        metrics = []
        if loss is None:
            loss, metrics = loss_and_metrics(config)
        model.compile(optimizer="sgd", loss=loss, metrics=metrics, jit_compile=config.jit_compile)
        calls.append(model.test_on_batch if len(calls) < 2 else model.train_on_batch)
    calls.append(real.train_on_batch)
    for call in calls:
        for inputs, targets in batches:
            call(inputs, targets)

    def walking(call):
        # Each part walks the batches on its own, so timed step i of every part runs on batch
        # i; the call returns host values: the step has finished.
        order = itertools.cycle(batches)
        return lambda: call(*next(order))

    # A rotating order, so that no part always follows the same one.
    timings = time_in_turn([walking(call) for call in calls], steps, rotate=True)
    return [timing.total / steps for timing in timings]


def run_profile(context):
    """Where each --models x --apis x --precisions training step's time goes (one record each;
    --jit-compile: its first value)."""
    args = context.options
    fixed = fixed_batches(context, "profile")
    if fixed is None:
        return []
    batches, source_tokenizer, target_tokenizer = fixed
    target_lengths = batch_lengths(batches)[1]
    steps = args.train_steps
    print(f"profile: {len(batches)} fixed batches, {steps} timed steps per part")

    def measure(head, options, peak):
        name, api, precision = head["model"], head["api"], head["precision"]

        def build():
            keras.utils.set_random_seed(args.seed)
            return build_model(name, api, source_tokenizer.vocab_size,
                               target_tokenizer.vocab_size, options)

        config = TrainConfig(model=name, api=api, jit_compile=head["jit_compile"],
                             precision=precision, **options)
        seconds = profile_step(build, config, batches, steps)
        model_config = build().get_config()
        # Mean forward FLOPs of the timed steps (step i trains on batch i % batches).
        per_batch = [forward_flops(name, model_config, *batch_lengths([batch]))
                     for batch in batches]
        forward = float(np.mean([per_batch[i % len(batches)] for i in range(steps)]))
        parts = np.diff([0.0, *seconds])
        peak = peak["flops_per_second"]
        width = model_config.get("d_model", model_config.get("units"))
        output = dense_flops(float(np.sum(target_lengths)), width,
                             model_config["target_vocab_size"])
        record = {
            "step_seconds": seconds[-1],
            "part_seconds": dict(zip(PARTS, parts.tolist(), strict=True)),
            "shares": dict(zip(PARTS, (parts / seconds[-1]).tolist(), strict=True)),
            "mfu_forward": forward / seconds[0] / peak,
            "mfu_backward": 2 * forward / parts[2] / peak if parts[2] > 0 else None,
            "mfu_step": 3 * forward / seconds[-1] / peak,
            "output_projection_flop_share": output / sum(per_batch),
            "peak_flops_per_second": peak, "model_options": options,
            "batch_size": args.batch_size, "batch_tokens": args.batch_tokens,
            "batches": len(batches), "steps": steps,
        }
        shares = ", ".join(f"{part} {share:.0%}" for part, share in record["shares"].items())
        print(f"  {name} {api} {precision}: {seconds[-1] * 1e3:,.0f} ms per step: {shares}")
        return record

    return measure_configurations(
        context, "profile", lambda api: [{"jit_compile": args.jit_compile[0]}], measure
    )


def _percent(value):
    return "n/a" if value is None else f"{value:.0%}"


def profile_table(records):
    """The profile records as a Markdown table (failures last)."""
    return records_table(records, [
        ("model", "model", ""), ("API", "api", ""), ("precision", "precision", ""),
        ("ms per step", lambda r: f"{r['step_seconds'] * 1e3:,.0f}", "r"),
        *[(part, lambda r, part=part: _percent(r["shares"][part]), "r") for part in PARTS],
        *[(f"MFU {what}", lambda r, what=what: _percent(r[f"mfu_{what}"]), "r")
          for what in ("forward", "backward", "step")],
        ("output projection / forward FLOPs",
         lambda r: _percent(r["output_projection_flop_share"]), "r"),
    ])
