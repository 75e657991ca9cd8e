"""`keras-nmt benchmark --backend jax`: the train and decode sections on synthetic batches.

Imported only after the command has set KERAS_BACKEND=jax (Keras reads it on import), so that
nothing loads TensorFlow: the GPU machine this is for has JAX but no TensorFlow.
"""

import itertools

import keras
import numpy as np

from keras_nmt.benchmarks import JAX_SECTION_NAMES
from keras_nmt.benchmarks import jax_benchmark as bench
from keras_nmt.benchmarks.speed import (
    COMPUTE_DTYPES,
    random_rows,
    source_batches,
    synthetic_lengths,
    token_batches,
    write_outputs,
)
from keras_nmt.hardware.peak import measure_peak_matmul


def run_jax_benchmark(args):
    """Runs `args.only` of the train and decode sections; prints and writes the tables.

    Args:
        args: the parsed, backend-resolved flags of `keras-nmt benchmark --backend jax`.

    Returns:
        0 (a twin that fails is a record with an `error`, not a failed run).
    """
    if keras.backend.backend() != "jax":
        raise ValueError(f"Keras was already set to {keras.backend.backend()!r}; run with "
                         "KERAS_BACKEND=jax")
    if args.quick:  # the quick preset, 2 batches, 2 steps, 16 sentences, a tiny peak matmul
        args.preset, args.train_batches, args.train_steps = "quick", 2, 2
        args.decode_sentences, args.peak_size, args.peak_chain = 16, 128, 1
    preset = bench.PRESETS[args.preset]
    vocab = preset["vocab_size"]
    budget = args.tokens_per_batch or preset["tokens_per_batch"]
    rng = np.random.default_rng(args.seed)
    max_length = 32 if args.quick else 96
    environment = bench.environment()
    print(f"{environment.get('device')}, jax {environment.get('jax_version')}, "
          f"keras {environment['keras_version']}")
    records = []
    device = environment.get("device", environment["backend"])

    def keep(record):
        records.append({**record, **environment, "seed": args.seed})
        write_outputs(args, records, bench.markdown(records, device))
        if record["section"] != "peak":
            print("  " + _line(records[-1]))

    sections = args.only or JAX_SECTION_NAMES
    if "train" in sections:
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
            dtype = COMPUTE_DTYPES[precision]
            peak = measure_peak_matmul(dtype, size=args.peak_size, repeats=5,
                                       chain=args.peak_chain)
            print(f"  peak {dtype} matmul: {peak['flops_per_second'] / 1e12:,.2f} TFLOP/s")
            keep({"section": "peak", **peak})
            for name, api in itertools.product(args.models, args.apis):
                keep(bench.train_record(name, api, precision, args.preset, batches,
                                        args.train_steps, peak, vocab, seed=args.seed))
                keras.backend.clear_session()
    if "decode" in sections:
        source_lengths, _ = synthetic_lengths(args.decode_sentences, rng,
                                              median=args.median_length, max_length=max_length)
        sources = source_batches(random_rows(source_lengths, vocab, rng))
        print(f"decode: {args.decode_sentences} sentences in {len(sources)} batches")
        for precision, name, api in itertools.product(args.precisions, args.models, args.apis):
            for record in bench.decode_records(name, api, precision, args.preset, sources,
                                               args.beam_size, vocab, seed=args.seed):
                keep(record)
            keras.backend.clear_session()
    print(bench.markdown(records, device))
    return 0


def _line(r):
    head = " ".join(r[key] for key in ("model", "api", "precision", "strategy") if key in r)
    if "error" in r:
        return f"{head}: FAILED {r['error']}"
    if r["section"] == "train":
        speed = (f"{r['tokens_per_second']:,.0f} tokens/s, MFU {r['mfu']:.1%}, "
                 f"step {1000 * r['median_step_seconds']:.1f} ms")
    else:
        speed = (f"{r['sentences_per_second']:,.1f} sentences/s, mean length "
                 f"{r['mean_output_length']:.1f}")
    return f"{head}: {speed} (warm-up {r['warmup_seconds']:.1f} s)"
