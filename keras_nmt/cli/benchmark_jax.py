"""Training and decoding speed of the eight twins under JAX, on synthetic batches (no TensorFlow).

For a GPU machine with JAX but without TensorFlow (keras, namex and optree are enough besides
jax; see docs/scale.md). Each twin (--models x --apis) trains in each --precisions on synthetic
token batches (log-normal lengths, median --median-length target tokens; length-bucketed
batches of at most --tokens-per-batch padded tokens), timed over --train-steps steps after one
untimed pass over the batches (compilation). Reported: real target tokens/s and MFU = model
FLOPs (keras_nmt.benchmarks.flops: 2*m*n*k per matmul, training = 3 x forward, real tokens
only) x tokens/s / the peak matmul FLOP/s measured in the same run in the compute dtype
(--peak-size square matmuls, --peak-chain per call). Decoding: sentences/s of greedy and beam
search (--beam-size) on --decode-sentences synthetic sources in batches of 64, untrained models
(they decode to the length cap; the mean output length is reported). Under JAX's default matmul
precision, float32 matmuls on NVIDIA GPUs run in TF32 (the peak is measured the same way).

Examples:
    python -m keras_nmt.cli.benchmark_jax --preset gpu --output-json jax.json --output-md jax.md
    python -m keras_nmt.cli.benchmark_jax --preset gpu --models transformer --apis functional
    python -m keras_nmt.cli.benchmark_jax --quick   # tiny sizes: a smoke test (CPU is fine)
"""

import argparse
import json
import os
import sys
from pathlib import Path

os.environ["KERAS_BACKEND"] = "jax"  # this benchmark is for the JAX backend

# After KERAS_BACKEND is set (keras reads it on import).
import keras  # noqa: E402
import numpy as np  # noqa: E402

from keras_nmt.benchmarks import jax_benchmark as bench  # noqa: E402
from keras_nmt.benchmarks.synthetic_batches import (  # noqa: E402
    source_batches,
    synthetic_lengths,
    token_batches,
)
from keras_nmt.cli.common import positive_float, positive_int  # noqa: E402
from keras_nmt.hardware.peak import measure_peak_matmul  # noqa: E402

MODELS = ("lstm", "luong", "bahdanau", "transformer")
APIS = ("functional", "subclassed")


def _names(choices):
    def parse(text):
        names = [name for name in text.split(",") if name]
        unknown = sorted(set(names) - set(choices))
        if unknown or not names:
            raise argparse.ArgumentTypeError(f"choose from {','.join(choices)}, got {text!r}")
        return names

    return parse


def parse_args(argv=None):
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--preset", choices=("reference", "gpu", "quick"), default="gpu",
                        help="model sizes and batch budget (see keras_nmt.benchmarks."
                             "jax_benchmark): reference configurations, the GPU-sized "
                             "Transformer (d_model 512, 6+6 layers, ff 2048, 32k-token batches), "
                             "or tiny (default: gpu)")
    parser.add_argument("--quick", action="store_true",
                        help="smoke test: --preset quick, 2 batches, 2 steps, 16 sentences")
    parser.add_argument("--models", type=_names(MODELS), default=list(MODELS),
                        help="comma-separated models (default: all four)")
    parser.add_argument("--apis", type=_names(APIS), default=list(APIS),
                        help="comma-separated APIs (default: functional,subclassed)")
    parser.add_argument("--precisions", type=_names(("float32", "mixed_bfloat16",
                                                      "mixed_float16")),
                        default=["float32", "mixed_bfloat16"],
                        help="comma-separated Keras dtype policies (default: "
                             "float32,mixed_bfloat16)")
    parser.add_argument("--only", type=_names(("train", "decode")), default=["train", "decode"],
                        help="sections to run: train, decode (default: both)")
    parser.add_argument("--tokens-per-batch", type=positive_int, default=None,
                        help="padded-token budget of a training batch (default: the preset's)")
    parser.add_argument("--median-length", type=positive_float, default=20.0,
                        help="median target sentence length in tokens (default: 20)")
    parser.add_argument("--train-batches", type=positive_int, default=4,
                        help="distinct training batches, spread over the length range; each "
                             "shape compiles once (default: 4)")
    parser.add_argument("--train-steps", type=positive_int, default=20,
                        help="timed training steps per twin and precision (default: 20)")
    parser.add_argument("--decode-sentences", type=positive_int, default=512,
                        help="synthetic source sentences to decode (default: 512)")
    parser.add_argument("--beam-size", type=positive_int, default=4, help="beam size (default: 4)")
    parser.add_argument("--peak-size", type=positive_int, default=8192,
                        help="side of the square matmuls of the peak measurement "
                             "(default: 8192)")
    parser.add_argument("--peak-chain", type=positive_int, default=4,
                        help="matmuls per timed call of the peak measurement (default: 4)")
    parser.add_argument("--output-json", type=Path, help="write the records as JSON here")
    parser.add_argument("--output-md", type=Path, help="write the Markdown tables here")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default: 0)")
    args = parser.parse_args(argv)
    if args.quick:
        args.preset, args.train_batches, args.train_steps = "quick", 2, 2
        args.decode_sentences, args.peak_size, args.peak_chain = 16, 128, 1
    for flag in ("train_batches", "train_steps", "decode_sentences", "beam_size",
                 "peak_size", "peak_chain"):
        if getattr(args, flag) < 1:
            parser.error(f"--{flag.replace('_', '-')} must be >= 1")
    return args


def main(argv=None):
    args = parse_args(argv)
    if keras.backend.backend() != "jax":
        print(f"error: Keras was already set to {keras.backend.backend()!r}; run with "
              "KERAS_BACKEND=jax", file=sys.stderr)
        return 2
    preset = bench.PRESETS[args.preset]
    vocab = preset["vocab_size"]
    budget = args.tokens_per_batch or preset["tokens_per_batch"]
    rng = np.random.default_rng(args.seed)
    max_length = 32 if args.quick else 96
    environment = bench.environment()
    print(f"{environment.get('device')}, jax {environment.get('jax_version')}, "
          f"keras {environment['keras_version']}")
    records = []
    if "train" in args.only:
        pool = max(50 * budget // int(args.median_length), 200)
        source_lengths, target_lengths = synthetic_lengths(
            pool, rng, median=args.median_length, max_length=max_length
        )
        batches = token_batches(source_lengths, target_lengths, budget, vocab, vocab, rng,
                                max_batches=args.train_batches)
        shapes = [inputs["encoder_tokens"].shape + targets.shape[1:] for inputs, targets in
                  batches]
        print(f"train: {len(batches)} batches (batch, source, target): {shapes}")
        for precision in args.precisions:
            dtype = bench.COMPUTE_DTYPES[precision]
            peak = measure_peak_matmul(dtype, size=args.peak_size, repeats=5,
                                       chain=args.peak_chain)
            print(f"  peak {dtype} matmul: {peak['flops_per_second'] / 1e12:,.2f} TFLOP/s")
            records.append({"section": "peak", **peak})
            for name in args.models:
                for api in args.apis:
                    record = bench.train_record(name, api, precision, args.preset, batches,
                                                args.train_steps, peak, vocab, seed=args.seed)
                    records.append(record)
                    print("  " + _train_line(record))
                    keras.backend.clear_session()
    if "decode" in args.only:
        source_lengths, _ = synthetic_lengths(args.decode_sentences, rng,
                                              median=args.median_length, max_length=max_length)
        sources = source_batches(source_lengths, vocab, rng)
        print(f"decode: {args.decode_sentences} sentences in {len(sources)} batches")
        for precision in args.precisions:
            for name in args.models:
                for api in args.apis:
                    for record in bench.decode_records(name, api, precision, args.preset,
                                                       sources, args.beam_size, vocab,
                                                       seed=args.seed):
                        records.append(record)
                        print("  " + _decode_line(record))
                    keras.backend.clear_session()
    records = [{**record, **environment, "seed": args.seed} for record in records]
    table = bench.markdown(records, environment.get("device", environment["backend"]))
    print(table)
    if args.output_json:
        args.output_json.write_text(json.dumps(records, indent=1) + "\n")
    if args.output_md:
        args.output_md.write_text(table)
    return 0


def _train_line(r):
    head = f"{r['model']} {r['api']} {r['precision']}: "
    if "error" in r:
        return head + "FAILED " + r["error"]
    return head + (f"{r['tokens_per_second']:,.0f} tokens/s, MFU {r['mfu']:.1%}, "
                   f"step {1000 * r['median_step_seconds']:.1f} ms "
                   f"(warm-up {r['warmup_seconds']:.1f} s)")


def _decode_line(r):
    head = f"{r['model']} {r['api']} {r['precision']} {r['strategy']}: "
    if "error" in r:
        return head + "FAILED " + r["error"]
    return head + (f"{r['sentences_per_second']:,.1f} sentences/s, mean length "
                   f"{r['mean_output_length']:.1f} (warm-up {r['warmup_seconds']:.1f} s)")


if __name__ == "__main__":
    sys.exit(main())
