"""Where a Transformer-base training step's time goes on a GPU, under JAX (a developer's probe).

Run with KERAS_BACKEND=jax on the GPU machine, after `keras-nmt benchmark --backend jax --size
gpu` in the same shell with the same JAX_COMPILATION_CACHE_DIR (its compilations are reused):

    python docs/results/jax-gpu-h200/probe_train_step.py --output probe.json --deadline 240

It builds the benchmark's four training batches (seed 0) and the subclassed Transformer-base,
bf16, and times, in the same process:
on one of those batch shapes (each model compiles once, not four times):
1. the two step loops on the same model, in turn: `train_on_batch` (which copies every weight
   back into the model and waits for the losses after each step) against `fit`;
2. with `fit`, the model without dropout, and with the batch doubled (twice the sentences of
   that shape). Each compiles anew: parts that would end after `--deadline` seconds are skipped.
"""

import argparse
import json
import os
import time

os.environ.setdefault("KERAS_BACKEND", "jax")

import keras  # noqa: E402
import numpy as np  # noqa: E402

from keras_nmt.models.registry import build_model  # noqa: E402
from keras_nmt.training.fused_adam import FusedAdam  # noqa: E402
from keras_nmt.training.masked_accuracy import MaskedAccuracy  # noqa: E402
from keras_nmt.training.masked_sparse_cross_entropy import MaskedSparseCrossEntropy  # noqa: E402
from keras_nmt.training.perplexity import Perplexity  # noqa: E402
from keras_nmt.workshop.benchmarks import jax_benchmark  # noqa: E402
from keras_nmt.workshop.benchmarks.speed import (  # noqa: E402
    _fit,
    synthetic_lengths,
    token_batches,
    train_measurement,
)
from keras_nmt.workshop.configurations import TRAINING_RECIPES, model_options  # noqa: E402
from keras_nmt.workshop.hardware.peak import measure_peak_matmul  # noqa: E402

START = time.perf_counter()


def model(configuration, **changes):
    options = {**model_options("transformer", configuration), **changes}
    built = build_model("transformer", "subclassed", 8000, 8000, options)
    adam = TRAINING_RECIPES["transformer"]["adam"]
    built.compile(optimizer=FusedAdam(1e-3, clipnorm=1.0, **adam),
                  loss=MaskedSparseCrossEntropy(), metrics=[MaskedAccuracy(), Perplexity()])
    return built


def loop_seconds(train, steps):
    begin = time.perf_counter()
    train(steps)
    return (time.perf_counter() - begin) / steps


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--output", required=True)
    parser.add_argument("--deadline", type=float, default=240.0)
    parser.add_argument("--steps", type=int, default=20)
    # benchmark-jax-quick with a small --tokens-per-batch and --peak-size: a smoke run on a CPU
    parser.add_argument("--configuration", default="benchmark-gpu")
    parser.add_argument("--tokens-per-batch", type=int, default=32768)
    parser.add_argument("--peak-size", type=int, default=8192)
    args = parser.parse_args()
    keras.mixed_precision.set_global_policy("mixed_bfloat16")
    keras.utils.set_random_seed(0)
    rng = np.random.default_rng(0)
    budget = args.tokens_per_batch
    pool = synthetic_lengths(50 * budget // 20, rng=rng, median=20.0, max_length=96)
    batches = token_batches(*pool, budget, 8000, 8000, rng, max_batches=4)
    print("environment", jax_benchmark.environment(), flush=True)
    peak = measure_peak_matmul("bfloat16", size=args.peak_size, repeats=5, chain=4)
    print(f"peak {peak['flops_per_second'] / 1e12:.1f} TFLOP/s", flush=True)
    results = {"peak": peak, "shapes": [b[0]["encoder_tokens"].shape + b[1].shape[1:]
                                        for b in batches]}

    def save():
        with open(args.output, "w") as file:
            json.dump(results, file, indent=1, default=str)

    # One batch shape (the (batch, 48, 32) batch): each model compiles once, not four times.
    one = [b for b in batches if b[1].shape[1] == 32] or batches[-1:]
    inputs, targets = one[0]
    doubled = [({k: np.concatenate([v, v]) for k, v in inputs.items()},
                np.concatenate([targets, targets]))]
    results["one_shape"] = {}

    def measure(name, data, **changes):
        keras.utils.set_random_seed(0)
        built = model(args.configuration, **changes)
        record = train_measurement(built, "transformer", data, args.steps, peak)
        results["one_shape"][name] = {
            "shape": data[0][0]["encoder_tokens"].shape + data[0][1].shape[1:], **record}
        print(f"{name}: {record['tokens_per_second']:,.0f} tokens/s, MFU {record['mfu']:.1%}, "
              f"step {1000 * record['mean_step_seconds']:.1f} ms, warm-up "
              f"{record['warmup_seconds']:.0f} s", flush=True)
        save()
        return built

    # 1. The two step loops on one model, in turn. `train_on_batch` passes sample weights too,
    # another input structure: its step compiles apart, untimed.
    base = measure("as it is", one)
    begin = time.perf_counter()
    base.train_on_batch(*one[0])
    results["train_on_batch_compile_seconds"] = time.perf_counter() - begin
    steps = args.steps

    def on_batch():
        for _ in range(steps):
            base.train_on_batch(*one[0])

    loops = {"train_on_batch": [], "fit": []}
    for _ in range(2):
        for name, train in (("train_on_batch", on_batch), ("fit", lambda: _fit(base, one, steps))):
            begin = time.perf_counter()
            train()
            loops[name].append(1000 * (time.perf_counter() - begin) / steps)
    results["loop_ms_per_step"] = loops
    print("loops, ms per step:", loops, flush=True)
    save()
    keras.backend.clear_session()

    # 2. Without dropout, and the batch doubled; each compiles anew (skipped past the deadline).
    last_cost = 60.0
    for name, data, changes in (("dropout 0", one, {"dropout": 0.0}),
                                ("batch doubled", doubled, {})):
        if time.perf_counter() - START + last_cost > args.deadline:
            print(f"skipped {name}: deadline", flush=True)
            continue
        begin = time.perf_counter()
        measure(name, data, **changes)
        last_cost = time.perf_counter() - begin
        keras.backend.clear_session()
    save()


if __name__ == "__main__":
    main()
