"""Parallel one-thread batches against one batch on all threads, in one interleaved run.

Configurations, each in a process of its own (TensorFlow's thread pools are per process and
fixed by its first op):

* A (today): TensorFlow's default pools (an op uses every core), one batch at a time.
* B: `configure_decoding_threads(THREADS)` first (one intra-op thread, THREADS inter-op), then
  `translate_batch(parallel=THREADS)`: THREADS batches at once, one thread each.

Four workers (A and B, for the in-process `Translator` of RUN_FOLDER and the `SavedTranslator` of
SAVED_DIR) load and warm up (one untimed pass of each decoding), then the driver asks them in
turn for timed passes, A B A B ..., so that a load from other processes hits both alike.

    python docs/results/parallel-translation/measure.py RUN_FOLDER SAVED_DIR \
        --data /work/shared/data/spa-eng.test.tsv --passes 3 --output results.json

`--a-plain-loop` makes A the decoder as it was before either change: the plain loops that keep
finished sentences in the batch (`COMPACT = False`; in-process only, so give no SAVED_DIR),
against B as `keras-nmt translate` runs today (compacting loops, parallel batches).
"""

import argparse
import importlib
import json
import statistics
import subprocess
import sys
import time

MODES = {"greedy": {}, "beam4": {"beam_size": 4}}
CONFIGS = ("A", "B")


def worker(args):
    # Before anything runs an op: B's pools must be set first.
    from keras_nmt.workshop.translators.decoding_threads import configure_decoding_threads

    parallel = configure_decoding_threads(args.threads) if args.config == "B" else 1
    if args.config == "B" and parallel != args.threads:
        raise SystemExit(f"configure_decoding_threads gave {parallel}, not {args.threads}")
    from keras_nmt.workshop.corpora.corpus import read_tsv
    from keras_nmt.workshop.translators.open_translator import open_translator

    if args.config == "A" and args.a_plain_loop:
        importlib.import_module("keras_nmt.decoding.loop").COMPACT = False

    texts = [source for source, _ in read_tsv(args.data).pairs][: args.sentences]
    translator = open_translator(args.path)
    for options in MODES.values():
        translator.translate_batch(texts, parallel=parallel, batch_size=args.batch_size, **options)
    print("READY", flush=True)
    for line in sys.stdin:
        mode = line.strip()
        start = time.perf_counter()
        results = translator.translate_batch(
            texts, parallel=parallel, batch_size=args.batch_size, **MODES[mode]
        )
        seconds = time.perf_counter() - start
        texts_out = [result.text for result in results]
        print("RESULT " + json.dumps({"seconds": seconds, "texts": texts_out}), flush=True)


def read_line(process, prefix):
    for line in process.stdout:
        if line.startswith(prefix):
            return line[len(prefix):].strip()
    raise RuntimeError(f"worker ended: {process.args}")


def driver(args):
    paths = {"in-process": args.run_dir, "SavedModel": args.saved_dir}
    if args.saved_dir is None:
        del paths["SavedModel"]
    workers = {}
    for kind, path in paths.items():
        for config in CONFIGS:
            command = [sys.executable, __file__, "--worker", config, "--path", path,
                       "--data", args.data, "--sentences", str(args.sentences),
                       "--threads", str(args.threads), "--batch-size", str(args.batch_size),
                       *(["--a-plain-loop"] if args.a_plain_loop else [])]
            workers[kind, config] = subprocess.Popen(
                command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
    for process in workers.values():
        read_line(process, "READY")
    passes = {key: [] for key in workers}
    outputs = {}
    for index in range(args.passes):
        for mode in MODES:
            for kind in paths:
                for config in CONFIGS:
                    process = workers[kind, config]
                    process.stdin.write(mode + "\n")
                    process.stdin.flush()
                    result = json.loads(read_line(process, "RESULT "))
                    passes[kind, config].append({"mode": mode, "seconds": result["seconds"]})
                    outputs.setdefault((kind, config, mode), []).append(result["texts"])
                    print(f"pass {index + 1} {mode} {kind} {config}: {result['seconds']:.2f} s",
                          flush=True)
    for process in workers.values():
        process.stdin.close()
        process.wait()
    rows = []
    for mode in MODES:
        for kind in paths:
            seconds = {c: [p["seconds"] for p in passes[kind, c] if p["mode"] == mode]
                       for c in CONFIGS}
            a, b = (outputs[kind, c, mode] for c in CONFIGS)
            baseline = a[0]
            same = [sum(x == y for x, y in zip(baseline, run, strict=True)) / len(baseline)
                    for run in a + b]
            rows.append({
                "mode": mode, "translator": kind, "sentences": len(baseline),
                "seconds": seconds,
                "median_seconds": {c: statistics.median(s) for c, s in seconds.items()},
                "sentences_per_second": {c: len(baseline) / statistics.median(s)
                                         for c, s in seconds.items()},
                "speedup_per_pass": [x / y for x, y in zip(seconds["A"], seconds["B"],
                                                           strict=True)],
                "speedup": statistics.median(seconds["A"]) / statistics.median(seconds["B"]),
                "same_outputs_as_first_A_pass": min(same),
            })
    record = {"a_plain_loop": args.a_plain_loop, "threads": args.threads,
              "batch_size": args.batch_size, "passes": args.passes, "data": args.data,
              "rows": rows}
    with open(args.output, "w", encoding="utf-8") as stream:
        json.dump(record, stream, indent=2)
    for row in rows:
        sps = row["sentences_per_second"]
        print(f"{row['mode']:7} {row['translator']:10} A {sps['A']:7.1f}  B {sps['B']:7.1f} "
              f"sent/s  B/A {row['speedup']:.2f} (passes "
              f"{', '.join(f'{s:.2f}' for s in row['speedup_per_pass'])})  "
              f"same outputs {row['same_outputs_as_first_A_pass']:.2%}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("run_dir", nargs="?")
    parser.add_argument("saved_dir", nargs="?")
    parser.add_argument("--data", required=True)
    parser.add_argument("--sentences", type=int, default=2000)
    parser.add_argument("--passes", type=int, default=3)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--output", default="parallel-translation.json")
    parser.add_argument("--a-plain-loop", action="store_true")
    parser.add_argument("--worker", choices=CONFIGS)
    parser.add_argument("--path")
    args = parser.parse_args()
    if args.worker:
        args.config = args.worker
        worker(args)
    else:
        driver(args)


if __name__ == "__main__":
    main()
