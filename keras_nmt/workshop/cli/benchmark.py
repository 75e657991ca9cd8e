"""Measure keras_nmt throughput and print Markdown tables (optionally JSON records and Markdown).

--backend tensorflow (the default) runs these sections on the spa-eng data (--only picks some):
    pipeline   tokenize-and-batch pairs/s of make_dataset on the training split per tokenizer
               kind (building the vocabularies is not timed).
    train      real target tokens/s of train_on_batch (after an untimed pass over the fixed
               batches) per model x API x precision x XLA at the `benchmark` sizes of
               keras_nmt.workshop.configurations; MFU = model FLOPs
               (keras_nmt.workshop.benchmarks.flops: real tokens only) x tokens/s / the matmul peak
               measured in this run.
    profile    where a training step's time goes (forward, loss and metrics, backward, Adam):
               each part's share, the passes' MFU, the output projection's share of the FLOPs.
    decode     greedy and beam search sentences/s on the test sentences, on UNTRAINED models
               (or --run RUN_FOLDER): they decode to the length cap, so the output length is shown.
    export     greedy sentences/s of the in-process Translator and of its reloaded SavedModel.
    translation  needs --run RUN_FOLDER: first calls and sentences/s per beam size of a fresh
               Translator and SavedModel, time against greedy, the agreement of their outputs.
--backend jax runs train and decode on synthetic token ids (log-normal lengths, length-bucketed
batches) without importing TensorFlow (docs/scale.md); its training steps run through fit (Keras'
JAX train_on_batch copies every weight back into the model after each step); float32 matmuls on
NVIDIA GPUs run in TF32 there (the peak alike). A flag of the other backend's group is refused;
sections whose data is missing from --data-dir are skipped with a message. Ratios mean something
within one run only.

Examples:
    keras-nmt benchmark --only pipeline --tokenizers char,subword --output-json bench.json
    keras-nmt benchmark --only train --models lstm,transformer --apis functional \\
        --precisions float32,mixed_bfloat16 --jit-compile off,on --output-md bench.md
    keras-nmt benchmark --only decode,export --run runs/spa-eng --decode-sentences 500
    keras-nmt benchmark --only translation --run runs/spa-eng --beam-sizes 4,8
    keras-nmt benchmark --quick --output-json /tmp/b.json   # tiny sizes: a smoke test
    keras-nmt benchmark --backend jax --size gpu --output-json jax.json --output-md jax.md
"""

import argparse
import os
import sys
import traceback
from pathlib import Path

from keras_nmt.models.registry import APIS, MODEL_NAMES
from keras_nmt.special_ids import TOKENIZER_KINDS
from keras_nmt.workshop.arguments import (
    check_outputs,
    new_parser,
    positive_float,
    positive_int,
)
from keras_nmt.workshop.benchmarks import (
    JAX_PRECISIONS,
    JAX_PRESETS,
    JAX_SECTION_NAMES,
    QUICK_PAIRS,
    QUICK_SENTENCES,
    QUICK_VOCAB_SIZE,
    SECTION_NAMES,
)
from keras_nmt.workshop.cli.common import (
    add_debug_flag,
    command,
    exit_status,
    start_tensorflow,
)
from keras_nmt.workshop.cli.options import add_options
from keras_nmt.workshop.corpora.corpus import shared_data_dir
from keras_nmt.workshop.run.train_config import PRECISIONS, TrainConfig

# The shared corpora beside a checkout of the repository (tests and the documented runs).
DEFAULT_DATA_DIR = shared_data_dir()
BACKENDS = ("tensorflow", "jax")


def _comma_list(cast=str):
    return lambda text: [cast(item.strip()) for item in text.split(",") if item.strip()]


def _on_off(text):
    values = []
    for item in _comma_list()(text):
        if item not in ("on", "off"):
            raise argparse.ArgumentTypeError(f"expected on/off values, got {item!r}")
        values.append(item == "on")
    return values


def _add(parser, container, flag, defaults, help, show_default=True, quick=None, **kwargs):
    """Adds `flag` to `container` (the parser or one backend's group) with a default per backend.

    `defaults` maps each backend that has the flag to its default, written as on a command line
    (None: the help says what leaving it out does); `quick` the same for `--quick` runs. The
    flag's default is None, so that `resolve_backend` can tell it was given: it refuses the flag
    under a backend missing from `defaults`, and fills in the backend's default (or its `quick`
    one) otherwise. A flag given wins over `--quick`.
    """
    shown = {name: value for name, value in defaults.items()
             if show_default and value not in (None, False)}
    if len(set(shown.values())) == 1:  # one backend's, or the same for both
        help += f" (default: {next(iter(shown.values()))})"
    elif shown:
        help += " (default: " + "; ".join(f"{k} {v}" for k, v in shown.items()) + ")"
    action = container.add_argument(flag, default=None, help=help, **kwargs)
    parser.backend_defaults.append((action, defaults, quick or {}))


def build_parser(prog=None):
    parser = new_parser(__doc__, prog)
    parser.backend_defaults = []
    tf = parser.add_argument_group("--backend tensorflow only")
    jax = parser.add_argument_group("--backend jax only")
    parser.add_argument("--backend", choices=BACKENDS, default="tensorflow",
                        help="tensorflow: the sections below on the spa-eng data; jax: train "
                        "and decode on synthetic batches, without importing TensorFlow "
                        "(default: %(default)s)")
    parser.add_argument("--only", action="append", default=None, metavar="SECTION",
                        type=_comma_list(),
                        help=f"run only these sections (tensorflow: {', '.join(SECTION_NAMES)}; "
                        f"jax: {', '.join(JAX_SECTION_NAMES)}); repeatable or comma-separated "
                        "(default: all of the backend's sections)")
    add_options(parser, ["seed"], TrainConfig(), helps={
        "seed": "seed of the data (shuffles, synthetic batches) and of the model initializations"})
    parser.add_argument("--quick", action="store_true",
                        help="tiny sizes, numbers without meaning: other defaults (tensorflow: "
                        f"{QUICK_PAIRS:,} pairs, vocabularies of {QUICK_VOCAB_SIZE}, "
                        f"{QUICK_SENTENCES} test sentences, greedy and beam 2, one export pass, "
                        "the smallest models; jax: --size quick, 16 sentences); both: 2 batches, "
                        "2 timed steps, a small peak matmul. A flag given wins over them")
    parser.add_argument("--output-json", default=None, metavar="PATH",
                        help="also write the records (one per measurement, with its "
                        "configuration, the machine or device and the versions) to this file")
    parser.add_argument("--output-md", default=None, metavar="PATH",
                        help="also write the Markdown tables to this file")
    _add(parser, tf, "--data-dir", {"tensorflow": str(DEFAULT_DATA_DIR)}, show_default=False,
         help="directory holding spa-eng.train.tsv.xz and spa-eng.test.tsv (default: "
         "../shared/data next to the repository)")
    _add(parser, tf, "--batch-size", {"tensorflow": "64"}, type=positive_int,
         help="pairs (pipeline, train, profile) or sentences (decode, export) per batch")
    _add(parser, tf, "--vocab-size", {"tensorflow": "8000"}, type=positive_int,
         quick={"tensorflow": str(QUICK_VOCAB_SIZE)},
         help="subword vocabulary size of both sides (pipeline: also the word vocabulary limit)")
    _add(parser, tf, "--vocab-pairs", {"tensorflow": None}, type=positive_int,
         quick={"tensorflow": str(QUICK_PAIRS)},
         help="train/profile/decode/export: build the subword vocabularies on N training pairs "
         "only, drawn at random with --seed (default: all; building is never timed)")
    # pipeline
    _add(parser, tf, "--tokenizers", {"tensorflow": ",".join(TOKENIZER_KINDS)},
         type=_comma_list(), help="pipeline: comma-separated tokenizer kinds to measure")
    _add(parser, tf, "--limit", {"tensorflow": None}, type=positive_int,
         quick={"tensorflow": str(QUICK_PAIRS)},
         help="pipeline: use only the first N pairs (default: all)")
    # models
    _add(parser, parser, "--models", {b: ",".join(MODEL_NAMES) for b in BACKENDS},
         type=_comma_list(), help="train/profile/decode/export: comma-separated models")
    _add(parser, parser, "--apis", {b: ",".join(APIS) for b in BACKENDS}, type=_comma_list(),
         help="train/profile/decode/export: comma-separated APIs; export uses the first")
    # train, profile
    _add(parser, parser, "--train-batches", {"tensorflow": "8", "jax": "4"}, type=positive_int,
         quick={"tensorflow": "2", "jax": "2"},
         help="train, profile: fixed batches used in turn (jax: spread over the length range); "
         "one untimed pass over them comes first (tracing, XLA compilation per shape)")
    _add(parser, parser, "--train-steps", {"tensorflow": "20", "jax": "20"}, type=positive_int,
         quick={"tensorflow": "2", "jax": "2"},
         help="train, profile: timed steps per configuration (profile: per part)")
    _add(parser, parser, "--precisions",
         {"tensorflow": "auto", "jax": ",".join(JAX_PRECISIONS[:2])}, type=_comma_list(),
         help="train, profile (jax: train, decode): comma-separated Keras dtype policies from "
         f"{', '.join(PRECISIONS)} (auto, tensorflow only: the one keras-nmt train would pick "
         "on this machine); the policy is reset to float32 after each configuration")
    _add(parser, tf, "--batch-tokens", {"tensorflow": None}, type=positive_int, metavar="N",
         help="train, profile: fixed batches of at most N padded source + target tokens "
         "(keras-nmt train --batch-tokens) instead of --batch-size pairs")
    _add(parser, tf, "--jit-compile", {"tensorflow": "off"}, type=_on_off,
         help="train: comma-separated on/off, XLA compilation of the train step (profile: the "
         "first value)")
    _add(parser, tf, "--eager", {"tensorflow": False}, action="store_true",
         help="train: also time the subclassed twins with run_eagerly=True (slow: only "
         "--eager-steps steps)")
    _add(parser, tf, "--eager-steps", {"tensorflow": "3"}, type=positive_int,
         help="train: timed steps of the eager runs")
    _add(parser, tf, "--same-shape", {"tensorflow": False}, action="store_true",
         help="train, profile: pad all fixed batches to the longest source and target among "
         "them: one trace and XLA compilation in all (tokens/s, FLOPs: real tokens only)")
    _add(parser, parser, "--peak-size", {"tensorflow": "2048", "jax": "8192"}, type=positive_int,
         quick={"tensorflow": "256", "jax": "128"},
         help="train, profile: side of the square matmuls measuring the peak FLOP/s")
    # decode / export
    _add(parser, parser, "--decode-sentences", {"tensorflow": "2000", "jax": "512"},
         quick={"tensorflow": str(QUICK_SENTENCES), "jax": "16"},
         type=positive_int, help="decode/export/translation: sentences to decode (tensorflow: "
         "the first N spa-eng test sentences; jax: N synthetic sources)")
    _add(parser, tf, "--beam-sizes", {"tensorflow": "1,4,8"}, type=_comma_list(positive_int),
         quick={"tensorflow": "1,2"},
         help="decode/translation: comma-separated beam sizes, 1 = greedy")
    _add(parser, tf, "--run", {"tensorflow": None}, metavar="RUN_FOLDER",
         help="decode/export: benchmark this trained run folder instead of untrained "
         "reference models; translation: the run it measures")
    _add(parser, tf, "--export-repeats", {"tensorflow": "2"}, type=positive_int,
         quick={"tensorflow": "1"},
         help="export: passes over the sentences for each translator, alternating, the best "
         "kept")
    # --backend jax
    _add(parser, jax, "--size", {"jax": "gpu"}, choices=JAX_PRESETS, dest="preset",
         quick={"jax": "quick"},
         help="model sizes and batch budget (jax_benchmark.PRESETS): the reference sizes, the "
         "GPU-sized Transformer (d_model 512, 6+6 layers, 32k-token batches), or tiny")
    _add(parser, jax, "--tokens-per-batch", {"jax": None}, type=positive_int,
         help="padded tokens of a training batch, batch x longer side (default: --size's)")
    _add(parser, jax, "--median-length", {"jax": "20"}, type=positive_float,
         help="median target sentence length in tokens")
    _add(parser, jax, "--beam-size", {"jax": "4"}, type=positive_int,
         help="decode: the width of the beam search timed after greedy")
    _add(parser, jax, "--peak-chain", {"jax": "4"}, type=positive_int,
         quick={"jax": "1"},
         help="matmuls per timed call of the peak measurement")
    add_debug_flag(parser)
    return parser  # fmt: skip


def resolve_backend(parser, args):
    """Gives each per-backend flag left out its default under `args.backend` (with `--quick`,
    its quick one where it has one); a flag given that the backend does not have is refused (a
    ValueError: one `error:` line)."""
    refused = []
    for action, defaults, quick in parser.backend_defaults:
        value = getattr(args, action.dest)
        if args.backend not in defaults:
            if value not in (None, False):
                refused.append(action.option_strings[0])
            continue
        default = defaults[args.backend]
        if args.quick and args.backend in quick:
            default = quick[args.backend]
        if value is None and default is not None:
            setattr(args, action.dest, action.type(default) if action.type else default)
    if refused:
        verb = "does" if len(refused) == 1 else "do"
        raise ValueError(f"{', '.join(refused)} {verb} not apply to --backend {args.backend}")


def _check(args):
    tensorflow = args.backend == "tensorflow"
    checks = {
        "tokenizer kinds": (args.tokenizers or [], TOKENIZER_KINDS),
        "models": (args.models, MODEL_NAMES),
        "APIs": (args.apis, APIS),
        "precisions": (args.precisions, PRECISIONS if tensorflow else JAX_PRECISIONS),
        "sections": (args.only or [], SECTION_NAMES if tensorflow else JAX_SECTION_NAMES),
    }
    for what, (chosen, known) in checks.items():
        unknown = [item for item in chosen if item not in known]
        if unknown:
            raise SystemExit(f"unknown {what} {unknown}; choose from {', '.join(known)}")


def parse(argv=None, prog=None):
    """The flags of `keras-nmt benchmark ARGV...`, each with its default under `--backend`."""
    parser = build_parser(prog)
    args = parser.parse_args(argv)
    resolve_backend(parser, args)
    if args.only:
        args.only = [name for group in args.only for name in group]
    _check(args)
    return args


@command
def main(argv=None, prog=None):
    args = parse(argv, prog)
    check_outputs({"--output-json": args.output_json, "--output-md": args.output_md}, [])
    if args.backend == "jax":
        # Keras reads KERAS_BACKEND when it is first imported, here: set first, so that nothing
        # imports TensorFlow (the GPU machine this is for has JAX only).
        os.environ["KERAS_BACKEND"] = "jax"
        from keras_nmt.workshop.benchmarks.jax_benchmark import run_jax_benchmark  # noqa: PLC0415

        return run_jax_benchmark(args)
    start_tensorflow(args.debug)
    # Imported after parsing: `--help` and flag errors must not wait for TensorFlow.
    from keras_nmt.workshop.benchmarks import sections  # noqa: PLC0415
    from keras_nmt.workshop.benchmarks.speed import write_outputs  # noqa: PLC0415
    from keras_nmt.workshop.run.run_folder import MODEL_FILE  # noqa: PLC0415

    if args.run and not (Path(args.run) / MODEL_FILE).is_file():
        # Found by each section, it was a traceback per section.
        state = "does not exist" if not Path(args.run).exists() else f"has no {MODEL_FILE}"
        raise FileNotFoundError(f"--run {args.run} {state}: give a finished run folder "
                                "(keras-nmt train --output-dir DIR)")

    context = sections.BenchmarkContext(args)
    records, failed = [], []
    for name, run in sections.SECTIONS.items():
        if args.only and name not in args.only:
            continue
        try:
            records += run(context)
        except Exception:  # one failing section must not cost the others' measurements
            traceback.print_exc()
            print(f"{name}: FAILED (traceback above); the other sections go on")
            failed.append(name)
        # Written after every section, so a crash or a kill later keeps what was measured.
        write_outputs(args, records, sections.markdown_report(records) + "\n")
    print(f"\n{sections.markdown_report(records)}" if records else "no measurements were made")
    for path, what in ((args.output_json, f"{len(records)} records"),
                       (args.output_md, "the tables")):
        if path:
            print(f"wrote {what} to {path}")
    if failed:
        print(f"failed sections: {', '.join(failed)}")
    return 1 if failed else 0

if __name__ == "__main__":
    sys.exit(exit_status(main()))

