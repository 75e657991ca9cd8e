"""Benchmark section "profile": where a training step's time goes, per model x API x precision.

Four copies of each configuration's model (same seed, same weights) are compiled so that each
adds one part of the training step to the one before:

1. `test_on_batch` with a loss that only averages the logits: the forward pass (inference
   mode: no dropout);
2. `test_on_batch` with the training loss and metrics (`loss_and_metrics`);
3. `train_on_batch` with them and plain SGD (no clipping): adds the backward pass, dropout and
   the cheapest update;
4. `train_on_batch` as `compile_model` sets it up (Adam, clipnorm): the real step.

After an untimed pass over the train section's fixed batches (tracing), the four run in turn on
every timed batch, so that a change of the machine's load hits all of them alike (timed one
after the other, the SGD step once measured 1.4x the Adam step on an idle machine). The
differences of consecutive mean step times give each part's share of the real step (`PARTS`);
noise can make a small share negative. Each pass's MFU divides its model FLOPs (forward:
`forward_flops`; backward: twice that; the step: `training_flops`) by its time and the measured
matmul peak; the output projection's share of the forward FLOPs shows what a cheaper vocabulary
layer could save.

Example:
    keras-nmt benchmark --only profile --models transformer --apis functional \
        --precisions float32,mixed_bfloat16 --output-md profile.md
"""

import itertools

import keras
import numpy as np
from keras import ops

from keras_nmt.benchmarks.flops import dense_flops, forward_flops
from keras_nmt.benchmarks.speed import batch_lengths, records_table
from keras_nmt.benchmarks.train_section import fixed_batches, measure_configurations
from keras_nmt.models.registry import build_model
from keras_nmt.timing import time_in_turn
from keras_nmt.training.train_config import TrainConfig
from keras_nmt.training.trainer import compile_model, loss_and_metrics

# The shares of the real step, in the order the four compilations add them.
PARTS = ("forward", "loss and metrics", "backward", "Adam and clipnorm")


def logit_mean(y_true, y_pred):
    """A loss that reads every logit for one reduction, so the forward pass cannot be pruned."""
    del y_true
    return ops.mean(y_pred)


def _compiled(build, config, loss=None):
    """A new copy of the model with plain SGD and `loss`, or the training loss and metrics."""
    model = build()
    metrics = []
    if loss is None:
        loss, metrics = loss_and_metrics(config)
    model.compile(optimizer="sgd", loss=loss, metrics=metrics, jit_compile=config.jit_compile)
    return model


def _step_calls(build, config):
    """The four step functions of the module docstring, each on its own copy of the model."""
    real = build()
    compile_model(real, config)
    return [_compiled(build, config, logit_mean).test_on_batch,
            _compiled(build, config).test_on_batch, _compiled(build, config).train_on_batch,
            real.train_on_batch]


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
    calls = _step_calls(build, config)
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


def _output_projection_flops(config, target_lengths):
    width = config["d_model"] if "d_model" in config else config["units"]
    return dense_flops(float(np.sum(target_lengths)), width, config["target_vocab_size"])


def run_profile(context):
    """Where each --models x --apis x --precisions training step's time goes (one record each).

    Args:
        context: the run's `BenchmarkContext` (the train section's flags; --jit-compile: the
            first value).

    Returns:
        One JSON record per configuration (with an `error` when it failed).
    """
    args = context.options
    fixed = fixed_batches(context, "profile")
    if fixed is None:
        return []
    batches, source_tokenizer, target_tokenizer = fixed
    target_lengths = batch_lengths(batches)[1]
    steps = 2 if args.quick else args.train_steps
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
        record = {
            **head,
            "step_seconds": seconds[-1],
            "part_seconds": dict(zip(PARTS, parts.tolist(), strict=True)),
            "shares": dict(zip(PARTS, (parts / seconds[-1]).tolist(), strict=True)),
            "mfu_forward": forward / seconds[0] / peak,
            "mfu_backward": 2 * forward / parts[2] / peak if parts[2] > 0 else None,
            "mfu_step": 3 * forward / seconds[-1] / peak,
            "output_projection_flop_share":
                _output_projection_flops(model_config, target_lengths) / sum(per_batch),
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
