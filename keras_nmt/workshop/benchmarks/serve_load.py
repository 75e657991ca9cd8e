"""Load test of `keras-nmt serve`: concurrent LibreTranslate clients against offline batches.

For each model (a run folder, its CTranslate2 export...), in one run:

1. offline: `translate_batch` over all the sentences the clients will send, after
   `configure_decoding_threads` (as the server does), in sentences/s (the median of three
   passes, the two kinds in turn): sorted by length over the whole set, as `keras-nmt
   translate` does a file; and also "as served": the same requests in the order a round of
   clients sends them, cut into batches of 64 sentences per worker and translated as the
   server does (one `translate_batch` call per batch, sorted and cut into the translator's
   `calls_per_worker` calls per worker of about equal cost), so that the share of the gap
   that comes from batch composition (fewer sentences to sort) stands apart from the share
   that comes from serving (HTTP, JSON, waiting);
2. the server: `python -m keras_nmt serve SRC:TGT=MODEL --port 0` (localhost only), warmed up
   by the clients' first 5 requests each (as the offline figures are taken warm), then
   `clients` concurrent clients each sending `requests` LibreTranslate `POST /translate`
   requests of 1-8 sentences (seeded), one keep-alive connection per client, from a process of
   their own (`load_clients`: asyncio, no TensorFlow). It reports sentences/s over the wall
   time, p50/p99 request latency, errors (any answer but a 200 translating every sentence
   sent), the server's resident memory (VmRSS) after warm-up, after the first half of the
   requests and at the end, the batch sizes the server formed (`GET /metrics`), the CPU the
   clients used (a share of one core: what they took from the server on a shared machine), and
   the CPU the server used, in cores of the machine's (what is left of them waited idle).

Bounded: at most `clients * requests` requests and `max_seconds` per model (clients stop
sending after it). Run as a script (results as a Markdown table, also written with
`--output`):

    python -m keras_nmt.workshop.benchmarks.serve_load runs/dates exports/dates-ct2 --pair en:de \\
        --output docs/results/serving-load.md
"""

import argparse
import http.client
import json
import random
import re
import shlex
import subprocess
import sys
import threading
from functools import partial
from pathlib import Path

from prometheus_client.parser import text_string_to_metric_families

from keras_nmt.workshop import interruption
from keras_nmt.workshop.arguments import check_outputs, new_parser, positive_float, positive_int
from keras_nmt.workshop.benchmarks.load_clients import resident_mb
from keras_nmt.workshop.corpora.builtin import builtin_pairs
from keras_nmt.workshop.lines import input_lines
from keras_nmt.workshop.markdown import table as markdown_table
from keras_nmt.workshop.output_file import write_text
from keras_nmt.workshop.run.train_config import LANGUAGE_CODE
from keras_nmt.workshop.timing import time_in_turn

# Requests per client that warm the server up before it is measured: its first batches of the
# full size (two graph calls at once, each of 64 sentences) took 35 ms against 21 ms later (the
# dates model), while the offline figures are the median of three passes after a warm-up.
WARM_UP_REQUESTS = 5


def client_requests(sentences, clients, requests, seed=0):
    """Per client, its requests: lists of 1-8 sentences drawn (seeded) from `sentences`."""
    rng = random.Random(seed)
    return [[rng.sample(sentences, rng.randint(1, 8)) for _ in range(requests)]
            for _ in range(clients)]


def arrival_order(batches):
    """Every sentence of `batches`, requests in the order rounds of clients send them (each
    client's first request, then each one's second...)."""
    rounds = zip(*batches, strict=True)
    return [text for requests in rounds for request in requests for text in request]


def offline_speed(path, batches, workers, batch_size=64, repeats=3):
    """Sentences/s of `translate_batch` over every sentence of `batches` (after a warm-up):
    `(sorted, as served)`, the latter in batches of `batch_size` per worker (the server's own
    count, `configure_decoding_threads`'); see the module. Each is the median of `repeats`
    passes, the two timed in turn (one pass of the run folder is a few seconds: a load that
    comes and goes would otherwise move the ratio the benchmark is for)."""
    from keras_nmt.workshop.translators.open_translator import open_translator  # noqa: PLC0415  (TensorFlow: not for --help)

    translator = open_translator(path)
    texts = arrival_order(batches)
    translator.translate_batch(texts[:batch_size], batch_size=batch_size)  # warm-up: tracing
    gathered = batch_size * workers
    chunks = [texts[start : start + gathered] for start in range(0, len(texts), gathered)]

    def as_served():
        for chunk in chunks:
            translator.translate_batch(chunk, batch_size=len(chunk),
                                       calls=workers * translator.calls_per_worker)

    whole, served_order = time_in_turn(
        [partial(translator.translate_batch, texts, batch_size=batch_size), as_served],
        repeats, rotate=True)
    return len(texts) / whole.median, len(texts) / served_order.median


def read_counters(text):
    """The server's counters from its `/metrics` (Prometheus' text format): `requests`,
    `sentences`, `errors`, `batches`, `mean_batch_size`, `largest_batch`."""
    samples = {sample.name: sample.value
               for family in text_string_to_metric_families(text)
               for sample in family.samples if not sample.labels}
    batches = samples["keras_nmt_batch_size_count"]
    return {
        "requests": int(samples["keras_nmt_requests_total"]),
        "sentences": int(samples["keras_nmt_sentences_total"]),
        "errors": int(samples["keras_nmt_errors_total"]),
        "batches": int(batches),
        "mean_batch_size": samples["keras_nmt_batch_size_sum"] / batches if batches else 0.0,
        "largest_batch": int(samples["keras_nmt_largest_batch"]),
    }


class _Server:
    def __init__(self, pair, path, serve_args=()):
        self.process = subprocess.Popen(
            [sys.executable, "-m", "keras_nmt", "serve", f"{pair}={path}", "--port", "0",
             "--max-sentences", "8", "--max-queue", "1024", "--timeout", "120", *serve_args],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        )
        line = ""
        try:  # a Ctrl-C while the server starts must not leave it running
            for line in self.process.stdout:
                match = re.match(r"serving on http://([\d.]+):(\d+)/", line)
                if match:
                    self.host, self.port = match[1], int(match[2])
                    # Keep reading its output, so that the server never blocks on a full pipe.
                    threading.Thread(target=self.process.stdout.read, daemon=True).start()
                    return
        except BaseException:
            self.stop()
            raise
        # Its last line is its own `error:` line (a flag of --serve-args it refuses, say).
        raise RuntimeError(f"the server for {path} did not start: {line.strip()}")

    def health(self):
        connection = http.client.HTTPConnection(self.host, self.port, timeout=60)
        connection.request("GET", "/metrics")
        return read_counters(connection.getresponse().read().decode())

    def stop(self):
        self.process.terminate()
        self.process.wait(30)


def load(path, pair, batches, max_seconds, serve_args=()):
    """Runs the clients (`load_clients`, a process of their own) against a fresh server of
    `path` (started with the extra flags `serve_args`), warmed up by the same clients sending
    their first `WARM_UP_REQUESTS` requests (not measured); returns the measurements."""
    source, target = pair.split(":")
    server = _Server(pair, path, serve_args)
    try:
        def run_clients(requests):
            job = {"host": server.host, "port": server.port, "source": source,
                   "target": target, "requests": requests, "max_seconds": max_seconds,
                   "server_pid": server.process.pid}
            clients = subprocess.run(
                [sys.executable, "-m", "keras_nmt.workshop.benchmarks.load_clients"],
                input=json.dumps(job), capture_output=True, text=True, check=True,
                timeout=max_seconds + 300,
            )
            return json.loads(clients.stdout)

        run_clients([requests[:WARM_UP_REQUESTS] for requests in batches])
        memory = {"after warm-up": resident_mb(server.process.pid)}
        measured = run_clients(batches)
        memory.update(measured["memory_mb"])
        memory["at the end"] = resident_mb(server.process.pid)
        counters = server.health()
    finally:
        server.stop()
    latencies = sorted(measured["latencies"])
    return {
        "requests": len(latencies), "sentences": measured["sentences"],
        "errors": measured["errors"], "seconds": measured["seconds"],
        "sentences_per_second": measured["sentences"] / measured["seconds"],
        "p50_ms": 1000 * latencies[len(latencies) // 2],
        "p99_ms": 1000 * latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))],
        "client_cpu_seconds": measured["client_cpu_seconds"],
        "server_cpu_seconds": measured["server_cpu_seconds"],
        "memory_mb": memory, "mean_batch": counters["mean_batch_size"],
        "largest_batch": counters["largest_batch"],
    }


def _flags(text):
    """`--serve-args`: flags in one string, split as a shell would."""
    try:
        return shlex.split(text)
    except ValueError as error:  # an unclosed quotation
        raise argparse.ArgumentTypeError(str(error)) from None


def _pair(text):
    """`--pair`: `SRC:TGT`, two language codes as LibreTranslate clients send them."""
    if not re.fullmatch(f"{LANGUAGE_CODE}:{LANGUAGE_CODE}", text):
        raise argparse.ArgumentTypeError("must be two language codes SRC:TGT such as en:de")
    return text


def build_parser():
    """The benchmark's flags (`main`), built without TensorFlow."""
    parser = new_parser(__doc__, prog="python -m keras_nmt.workshop.benchmarks.serve_load")
    parser.add_argument("models", nargs="+", help="run folders or exports of one model")
    parser.add_argument("--pair", type=_pair, default="en:de",
                        help="SRC:TGT the models are served under (default: %(default)s)")
    parser.add_argument("--sentences", default=None,
                        help="a file of source sentences, one per line (default: the built-in "
                        "dates test split)")
    parser.add_argument("--clients", type=positive_int, default=32,
                        help="concurrent clients (default: %(default)s)")
    parser.add_argument("--requests", type=positive_int, default=100,
                        help="requests per client (default: %(default)s)")
    parser.add_argument("--max-seconds", type=positive_float, default=900,
                        help="per model: clients stop sending after this (default: %(default)s)")
    parser.add_argument("--serve-args", type=_flags, default=[],
                        help="more flags for `keras-nmt serve`, in one string (e.g. "
                        "\"--max-wait-ms 10 --max-batch 128\"; default: its own defaults)")
    parser.add_argument("--output", default=None,
                        help="also write the table to this file (checked before the run)")
    return parser


def main(argv=None):
    parser = build_parser()
    args = parser.parse_args(argv)
    try:  # before the run: a path found wrong after it costs the whole benchmark
        check_outputs({"--output": args.output}, [args.sentences, *args.models])
        if args.sentences:
            sentences = input_lines(args.sentences)
            if not any(sentence.strip() for sentence in sentences):
                raise ValueError(f"{args.sentences} has no sentences")
        else:
            sentences = [source for source, _ in builtin_pairs("dates", "test")]
        for path in args.models:
            if not Path(path).exists():
                raise ValueError(f"{path}: no such run folder or export")
    except (OSError, ValueError) as error:
        parser.exit(1, f"error: {error}\n")
    batches = client_requests(sentences, args.clients, args.requests)
    # TensorFlow's import, after the arguments: `--help` answers without it.
    from keras_nmt.workshop.hardware.machine import describe_machine, machine_summary  # noqa: PLC0415
    from keras_nmt.workshop.translators.decoding_threads import configure_decoding_threads  # noqa: PLC0415

    workers = configure_decoding_threads()  # as `keras-nmt serve` does: its workers
    machine = describe_machine()
    rows = []
    for path in args.models:
        try:  # a folder that is no model fails offline; a flag the server refuses, in load
            offline, as_served = offline_speed(path, batches, workers)
            served = load(path, args.pair, batches, args.max_seconds, args.serve_args)
        except (OSError, ValueError, RuntimeError) as error:
            parser.exit(1, f"error: {error}\n")
        memory = served["memory_mb"]
        rows.append([
            path, f"{served['requests']}", f"{served['errors']}",
            f"{served['sentences_per_second']:.0f}", f"{offline:.0f}",
            f"{served['sentences_per_second'] / offline:.0%}", f"{as_served:.0f}",
            f"{served['sentences_per_second'] / as_served:.0%}",
            f"{served['p50_ms']:.0f}", f"{served['p99_ms']:.0f}",
            " / ".join(f"{value:.0f}" for value in memory.values()),
            f"{served['mean_batch']:.1f} ({served['largest_batch']})",
            f"{served['client_cpu_seconds'] / served['seconds']:.0%}",
            f"{served['server_cpu_seconds'] / served['seconds']:.2f} of {machine['cpu_count']}",
        ])
        print(json.dumps({"model": path, "offline_sentences_per_second": offline,
                          "offline_as_served_sentences_per_second": as_served, **served}),
              flush=True)
    table = markdown_table(
        ["model", "requests", "errors", "served sent/s", "offline sent/s", "served/offline",
         "offline as served sent/s", "served/as served",
         "p50 ms", "p99 ms", "RSS MiB (warm / half / end)", "mean batch (largest)",
         "clients' CPU", "server's CPU (cores)"], rows)
    flags = f"The server's extra flags: {shlex.join(args.serve_args) or 'none (its defaults)'}"
    text = f"{machine_summary(machine)}\n\n{flags}\n\n{table}\n"
    print(text)
    if args.output:
        write_text(args.output, text)


def run(argv=None):
    """`main` with Ctrl-C and SIGTERM as one line and exit status 130 / 143, as every
    `keras-nmt` command has them (`keras_nmt.workshop.interruption`): the servers it started are
    stopped and no table is half-written."""
    return interruption.run(partial(main, argv)) or 0


if __name__ == "__main__":
    sys.exit(run())
