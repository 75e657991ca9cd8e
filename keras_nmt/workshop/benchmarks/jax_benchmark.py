"""`keras-nmt benchmark --backend jax`: training and decoding speed of the twins, no TensorFlow.

For a machine with JAX (e.g. a GPU) but no TensorFlow: token ids are random
(`speed.token_batches`), models come from the registry, the loss and metrics are the training
ones, and MFU is measured against a matmul peak taken in the same run. The command imports this
module only after setting KERAS_BACKEND=jax (Keras reads it on import); its functions work under
any backend.

`PRESETS` (`--size`) name a configuration of workshop/configurations.py (`benchmark`: the
reference sizes; `benchmark-gpu`: the Transformer GPU-sized, d_model 512, 6+6 layers; tiny ones
for a smoke test), the padded-token budget of a training batch and the vocabulary size.
"""

import itertools

import keras
import numpy as np

from keras_nmt.decoding.loop import decode
from keras_nmt.models.registry import build_model
from keras_nmt.plural import plural
from keras_nmt.training.fused_adam import FusedAdam
from keras_nmt.training.masked_accuracy import MaskedAccuracy
from keras_nmt.training.masked_sparse_cross_entropy import MaskedSparseCrossEntropy
from keras_nmt.training.perplexity import Perplexity
from keras_nmt.workshop.benchmarks import JAX_SECTION_NAMES
from keras_nmt.workshop.benchmarks.speed import (
    COMPUTE_DTYPES,
    configuration_record,
    random_rows,
    records_table,
    source_batches,
    synthetic_lengths,
    time_decoding,
    token_batches,
    train_measurement,
    write_outputs,
)
from keras_nmt.workshop.configurations import TRAINING_RECIPES, model_options
from keras_nmt.workshop.hardware.peak import measure_peak_matmul

# The model sizes of each preset: a `REFERENCE_CONFIGURATIONS` entry (every registered model has
# one there).
PRESETS = {
    "reference": {"configuration": "benchmark", "tokens_per_batch": 8192, "vocab_size": 8000},
    "gpu": {"configuration": "benchmark-gpu", "tokens_per_batch": 32768, "vocab_size": 8000},
    "quick": {"configuration": "benchmark-jax-quick", "tokens_per_batch": 256, "vocab_size": 50},
}


def environment():
    """Versions and the device the run measured (JSON-ready)."""
    record = {"backend": keras.backend.backend(), "keras_version": keras.__version__}
    if record["backend"] == "jax":
        import jax  # the JAX backend only: the device and version come from jax itself

        device = jax.devices()[0]
        record.update(jax_version=jax.__version__, device=f"{device.platform}: "
                      f"{device.device_kind}", device_count=jax.device_count())
    return record


def _model(name, api, preset, vocab_size):
    return build_model(name, api, vocab_size, vocab_size,
                       model_options(name, PRESETS[preset]["configuration"]))


def train_record(name, api, precision, preset, batches, steps, peak, vocab_size, seed=0):
    """Tokens/s and MFU of one twin in one precision (a dict; `error` when it failed).

    Compiled as `keras_nmt.training.fit.compile_model` would, without TensorFlow:
    `FusedAdam` with the model's Adam settings, the masked loss and metrics; a constant learning
    rate instead of the Transformer's warm-up schedule (a scalar per step: no difference in speed).
    """
    def measure():
        model = _model(name, api, preset, vocab_size)
        model.compile(optimizer=FusedAdam(1e-3, clipnorm=1.0, **TRAINING_RECIPES[name]["adam"]),
                      loss=MaskedSparseCrossEntropy(), metrics=[MaskedAccuracy(), Perplexity()])
        return train_measurement(model, name, batches, steps, peak)

    head = {"section": "train", "model": name, "api": api, "precision": precision,
            "preset": preset}
    return configuration_record(head, precision, seed, measure)


def decode_records(name, api, precision, preset, sources, beam_size, vocab_size, seed=0):
    """Greedy and beam-search sentences/s of one untrained twin (dicts; `error` on failure).

    Under JAX `decode` compiles once per shape bucket: one batch per shape is decoded untimed
    first. Untrained models rarely emit END: they decode to the length cap, so
    `mean_output_length` is reported next to the speed.
    """
    one_per_shape = list({ids.shape: ids for ids in sources}.values())
    records = []
    for strategy, options in (("greedy", {}), ("beam", {"beam_size": beam_size})):
        def measure(strategy=strategy, options=options):
            model = _model(name, api, preset, vocab_size)
            tokens = np.full((1, 2), 4, dtype=np.int32)  # built: decode compiles built models only
            model({"encoder_tokens": tokens, "decoder_tokens": tokens})
            return time_decoding(
                lambda ids: decode(model, ids, strategy, **options).best().lengths, sources,
                one_per_shape)

        head = {"section": "decode", "model": name, "api": api, "precision": precision,
                "preset": preset, "strategy": strategy, **options}
        records.append(configuration_record(head, precision, seed, measure))
    return records


def markdown(records, device):
    """Two Markdown tables (training, decoding) of `records`, naming `device`."""
    head = [("model", "model", ""), ("API", "api", ""), ("precision", "precision", "")]
    train = records_table([r for r in records if r["section"] == "train"], [
        *head, ("tokens/s", "tokens_per_second", ",.0f"), ("MFU", "mfu", ".1%"),
        ("mean step (ms)", lambda r: f"{1000 * r['mean_step_seconds']:.1f}", "r"),
    ])
    decode = records_table([r for r in records if r["section"] == "decode"], [
        *head, ("strategy", lambda r: r["strategy"] + (f" {r['beam_size']}" if "beam_size" in r
                                                      else ""), ""),
        ("sentences/s", "sentences_per_second", ",.1f"),
        ("mean output length", "mean_output_length", ".1f"),
    ], head=4)
    return "\n".join([
        f"Training on {device}: real target tokens/s, MFU against the measured peak", "", train,
        "", f"Decoding on {device} (untrained models, batches of 64): sentences/s", "", decode,
    ]) + "\n"


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
    vocab = PRESETS[args.preset]["vocab_size"]
    rng = np.random.default_rng(args.seed)
    lengths = {"rng": rng, "median": args.median_length, "max_length": 32 if args.quick else 96}
    run_environment = environment()
    device = run_environment.get("device", run_environment["backend"])
    print(f"{run_environment.get('device')}, jax {run_environment.get('jax_version')}, "
          f"keras {run_environment['keras_version']}")
    records = []

    def keep(record):
        records.append({**record, **run_environment, "seed": args.seed})
        write_outputs(args, records, markdown(records, device))
        if record["section"] != "peak":
            print("  " + _line(records[-1]))

    sections = args.only or JAX_SECTION_NAMES
    if "train" in sections:
        budget = args.tokens_per_batch or PRESETS[args.preset]["tokens_per_batch"]
        pool = synthetic_lengths(max(50 * budget // int(args.median_length), 200), **lengths)
        batches = token_batches(*pool, budget, vocab, vocab, rng, max_batches=args.train_batches)
        shapes = [inputs["encoder_tokens"].shape + targets.shape[1:]
                  for inputs, targets in batches]
        print(f"train: {plural(len(batches), 'batch')} (batch, source, target): {shapes}")
        for precision in args.precisions:
            dtype = COMPUTE_DTYPES[precision]
            peak = measure_peak_matmul(dtype, size=args.peak_size, repeats=5,
                                       chain=args.peak_chain)
            print(f"  peak {dtype} matmul: {peak['flops_per_second'] / 1e12:,.2f} TFLOP/s")
            keep({"section": "peak", **peak})
            for name, api in itertools.product(args.models, args.apis):
                keep(train_record(name, api, precision, args.preset, batches, args.train_steps,
                                  peak, vocab, seed=args.seed))
    if "decode" in sections:
        source_lengths, _ = synthetic_lengths(args.decode_sentences, **lengths)
        sources = source_batches(random_rows(source_lengths, vocab, rng))
        print(f"decode: {plural(args.decode_sentences, 'sentence')} in "
              f"{plural(len(sources), 'batch')}")
        for precision, name, api in itertools.product(args.precisions, args.models, args.apis):
            for record in decode_records(name, api, precision, args.preset, sources,
                                         args.beam_size, vocab, seed=args.seed):
                keep(record)
    print(markdown(records, device))
    return 0


def _line(r):
    head = " ".join(r[key] for key in ("model", "api", "precision", "strategy") if key in r)
    if "error" in r:
        return f"{head}: FAILED {r['error']}"
    if r["section"] == "train":
        speed = (f"{r['tokens_per_second']:,.0f} tokens/s, MFU {r['mfu']:.1%}, "
                 f"step {1000 * r['mean_step_seconds']:.1f} ms")
    else:
        speed = (f"{r['sentences_per_second']:,.1f} sentences/s, mean length "
                 f"{r['mean_output_length']:.1f}")
    return f"{head}: {speed} (warm-up {r['warmup_seconds']:.1f} s)"
