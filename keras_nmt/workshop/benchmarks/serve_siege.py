"""A siege of `keras-nmt serve`: idle connections past the descriptor limit, a pile of
explorations and translating clients at once, on localhost, for a bounded time.

The server (`python -m keras_nmt serve SRC:TGT=MODEL --port 0`) starts under a descriptor
limit (`--descriptors`, as `ulimit -n 1024` sets it), is warmed up by one translation and one
exploration (each beam size traces its graph once), and then, for `--seconds`, three kinds of
client, each a process of its own (asyncio, no TensorFlow), press it together:

* `--idle` connections that never finish a request: half send nothing, half send a request
  head a byte a second (slowloris). One that the server closes is opened again at once, so
  that as many press it all the time.
* `--explorers` concurrent explorer clients, each sending `POST /api/explore` (beam 8) one
  after the other on a keep-alive connection; after a 429 a client waits half a second
  (less than the `Retry-After` the server asks for) and sends again.
* `--translators` concurrent LibreTranslate clients, each sending `POST /translate` requests
  of 1-4 sentences of the built-in dates test split one after the other on a keep-alive
  connection, each with a timeout of the server's `--timeout` plus 5 s. They also send alone
  for `--warm-up` seconds before the siege (TensorFlow makes and keeps kernels for each new
  batch shape: the server's memory grows for the first 20 s or so of any load, then stays).

It reports what each kind of client got (statuses, latencies, timeouts), whether the server
printed a traceback or `Too many open files`, and the server's resident memory (VmRSS) and open
descriptors, sampled each second from the siege's start. Passing means: every translation a 200
within its timeout, every exploration a 200 or a 429, no 500, no traceback, memory flat. Run as
a script:

    python -m keras_nmt.workshop.benchmarks.serve_siege runs/dates-tiny --pair en:de \\
        --descriptors 1024 --idle 1000 --explorers 100 --translators 32 --seconds 60
"""

import argparse
import asyncio
import json
import os
import random
import re
import resource
import subprocess
import sys
import threading
import time
from pathlib import Path

from keras_nmt.workshop.arguments import new_parser, positive_float, positive_int
from keras_nmt.workshop.benchmarks.load_clients import resident_mb

EXPLORE_BEAM = 8


def open_descriptors(pid):
    """The number of file descriptors process `pid` holds (Linux)."""
    return len(os.listdir(f"/proc/{pid}/fd"))


def raise_own_descriptor_limit():
    """The clients' own limit raised to the hard one: they hold more than the server may."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


async def _post(reader, writer, path, body, host):
    """One request on an open connection: `(status, headers, payload)`."""
    head = (f"POST {path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\n\r\n")
    writer.write(head.encode() + body)
    lines = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
    status = int(lines[0].split(" ", 2)[1])
    headers = dict(line.lower().split(": ", 1) for line in lines[1:] if line)
    payload = await reader.readexactly(int(headers.get("content-length", 0)))
    return status, headers, payload


def _summary(latencies):
    if not latencies:
        return {"p50_ms": None, "p99_ms": None, "max_ms": None}
    ordered = sorted(latencies)
    return {"p50_ms": round(1000 * ordered[len(ordered) // 2], 1),
            "p99_ms": round(1000 * ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))], 1),
            "max_ms": round(1000 * ordered[-1], 1)}


async def idle_role(host, port, count, seconds):
    """`count` connections that never finish a request, each opened again once closed."""
    stats = {"opened": 0, "closed_by_server": 0, "connect_failures": 0, "lifetimes": []}
    deadline = time.monotonic() + seconds

    async def one(slow):
        while time.monotonic() < deadline:
            try:
                reader, writer = await asyncio.wait_for(asyncio.open_connection(host, port), 10)
            except (OSError, TimeoutError):
                stats["connect_failures"] += 1
                await asyncio.sleep(0.5)
                continue
            stats["opened"] += 1
            opened = time.monotonic()
            head = b"GET / HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 4096
            try:
                for byte in head if slow else ():
                    if time.monotonic() > deadline:
                        break
                    writer.write(bytes([byte]))
                    await writer.drain()
                    if await _closed_within(reader, 1.0):
                        raise ConnectionResetError
                if not slow:
                    while time.monotonic() < deadline:
                        if await _closed_within(reader, 1.0):
                            raise ConnectionResetError
            except OSError:  # closed by the server (reset, or an EOF seen above)
                stats["closed_by_server"] += 1
                stats["lifetimes"].append(time.monotonic() - opened)
            finally:
                writer.close()

    await asyncio.gather(*(one(slow=i % 2 == 1) for i in range(count)))
    lifetimes = sorted(stats.pop("lifetimes"))
    stats["median_lifetime_s"] = round(lifetimes[len(lifetimes) // 2], 1) if lifetimes else None
    return stats


async def _closed_within(reader, seconds):
    """Whether the server closes the connection (EOF or reset) within `seconds`."""
    try:
        return await asyncio.wait_for(reader.read(1), seconds) == b""
    except TimeoutError:
        return False


async def explore_role(host, port, count, seconds, sentences):
    """`count` explorer clients, one request after the other each; a 429 waits 0.5 s."""
    statuses, latencies, failures = {}, [], {"connection": 0, "reconnected": 0}
    deadline = time.monotonic() + seconds
    rng = random.Random(1)

    async def one():
        reader = writer = None
        while time.monotonic() < deadline:
            body = json.dumps({"q": rng.choice(sentences), "beam_size": EXPLORE_BEAM}).encode()
            start = time.monotonic()
            try:
                if writer is None or reader.at_eof():  # none yet, or closed while idle
                    failures["reconnected"] += writer is not None
                    reader, writer = await asyncio.open_connection(host, port)
                status, headers, _ = await asyncio.wait_for(
                    _post(reader, writer, "/api/explore", body, host), 120)
            except (OSError, TimeoutError, asyncio.IncompleteReadError, ValueError):
                failures["connection"] += 1
                if writer is not None:
                    writer.close()
                reader = writer = None
                await asyncio.sleep(0.5)
                continue
            statuses[status] = statuses.get(status, 0) + 1
            if status == 200:
                latencies.append(time.monotonic() - start)
            if headers.get("connection") == "close":
                writer.close()
                reader = writer = None
            if status == 429:
                await asyncio.sleep(0.5)
        if writer is not None:
            writer.close()

    await asyncio.gather(*(one() for _ in range(count)))
    return {"statuses": statuses, **failures, **_summary(latencies)}


async def translate_role(host, port, count, seconds, sentences, timeout, pair):
    """`count` LibreTranslate clients, one request of 1-4 sentences after the other each."""
    statuses, latencies = {}, []
    failures = {"connection": 0, "reconnected": 0, "timed_out": 0, "wrong_answer": 0}
    deadline = time.monotonic() + seconds
    rng = random.Random(2)
    source, target = pair.split(":")

    async def one():
        reader = writer = None
        while time.monotonic() < deadline:
            texts = rng.sample(sentences, rng.randint(1, 4))
            body = json.dumps({"q": texts, "source": source, "target": target}).encode()
            start = time.monotonic()
            try:
                if writer is None or reader.at_eof():  # none yet, or closed while idle
                    failures["reconnected"] += writer is not None
                    reader, writer = await asyncio.open_connection(host, port)
                status, headers, payload = await asyncio.wait_for(
                    _post(reader, writer, "/translate", body, host), timeout)
            except TimeoutError:
                failures["timed_out"] += 1
                status = None
            except (OSError, asyncio.IncompleteReadError, ValueError):
                failures["connection"] += 1
                status = None
            if status is None:
                if writer is not None:
                    writer.close()
                reader = writer = None
                continue
            statuses[status] = statuses.get(status, 0) + 1
            latencies.append(time.monotonic() - start)
            if status == 200 and len(json.loads(payload)["translatedText"]) != len(texts):
                failures["wrong_answer"] += 1
            if headers.get("connection") == "close":
                writer.close()
                reader = writer = None
        if writer is not None:
            writer.close()

    await asyncio.gather(*(one() for _ in range(count)))
    return {"requests": sum(statuses.values()), "statuses": statuses, **failures,
            **_summary(latencies)}


def role_main(job):
    """One kind of client, in this process: `job` as `siege` writes it; prints JSON."""
    raise_own_descriptor_limit()
    host, port, seconds = job["host"], job["port"], job["seconds"]
    if job["role"] == "idle":
        result = asyncio.run(idle_role(host, port, job["count"], seconds))
    elif job["role"] == "explore":
        result = asyncio.run(explore_role(host, port, job["count"], seconds, job["sentences"]))
    else:
        result = asyncio.run(translate_role(host, port, job["count"], seconds,
                                            job["sentences"], job["timeout"], job["pair"]))
    print(json.dumps(result), flush=True)


class _Server:
    """`keras-nmt serve` under a descriptor limit; its output kept (`output`)."""

    def __init__(self, pair, model, descriptors, serve_args):
        def limit():
            resource.setrlimit(resource.RLIMIT_NOFILE,
                               (descriptors, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))

        self.process = subprocess.Popen(
            [sys.executable, "-m", "keras_nmt", "serve", f"{pair}={model}", "--port", "0",
             *serve_args], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            preexec_fn=limit)
        self.output = []
        for line in self.process.stdout:
            self.output.append(line)
            match = re.match(r"serving on http://([\d.]+):(\d+)/", line)
            if match:
                self.host, self.port = match[1], int(match[2])
                threading.Thread(target=self._read, daemon=True).start()
                return
        raise RuntimeError("the server did not start:\n" + "".join(self.output))

    def _read(self):
        for line in self.process.stdout:
            self.output.append(line)

    def stop(self):
        self.process.terminate()
        self.process.wait(30)


def _request(host, port, path, body):
    async def go():
        reader, writer = await asyncio.open_connection(host, port)
        try:
            return await _post(reader, writer, path, json.dumps(body).encode(), host)
        finally:
            writer.close()

    return asyncio.run(go())


def siege(model, pair, descriptors, idle, explorers, translators, seconds, serve_args,
          sentences, warm_up=30):
    """Runs the siege (see the module); returns its measurements."""
    timeout = 30.0
    server = _Server(pair, model, descriptors, ["--timeout", str(timeout), *serve_args])
    source, target = pair.split(":")
    try:
        for path, body in (("/translate", {"q": sentences[0], "source": source,
                                           "target": target}),
                           ("/api/explore", {"q": sentences[0], "beam_size": EXPLORE_BEAM})):
            status, _, payload = _request(server.host, server.port, path, body)
            if status != 200:
                raise RuntimeError(f"warm-up {path}: {status} {payload[:200]!r}")
        pid = server.process.pid
        base = {"host": server.host, "port": server.port, "pair": pair,
                "sentences": sentences, "timeout": timeout + 5}
        if warm_up:  # the translating clients alone first: TensorFlow's kernels for the
            # batch shapes they send are made and kept then, not during the siege
            warming = _role({**base, "seconds": warm_up, "role": "translate",
                             "count": translators})
            warm = json.loads(warming.stdout.read().strip().splitlines()[-1])
            warming.wait(timeout=300)
        samples = []
        stop = threading.Event()

        def sample():
            while not stop.is_set() and server.process.poll() is None:
                try:
                    samples.append((resident_mb(pid), open_descriptors(pid)))
                except (OSError, TypeError):  # it has just exited
                    break
                stop.wait(1.0)

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        roles = {name: _role({**base, "seconds": seconds, "role": name, "count": count})
                 for name, count in (("idle", idle), ("explore", explorers),
                                     ("translate", translators)) if count}
        results = {"warm_up_translate": warm} if warm_up else {}
        for name, process in roles.items():
            out = process.stdout.read()
            process.wait(timeout=300)
            results[name] = json.loads(out.strip().splitlines()[-1])
        stop.set()
        sampler.join()
        try:
            metrics = _request_get(server.host, server.port, "/metrics")[2].decode()
        except OSError:  # the server has died
            metrics = ""
        exit_status = server.process.poll()
    finally:
        server.stop()
    printed = "".join(server.output)
    memory = [m for m, _ in samples] or [float("nan")]
    return {
        "clients": results,
        "server": {
            "rss_mb_first_last_max": [round(memory[0]), round(memory[-1]), round(max(memory))],
            "rss_mb_every_10_s": [round(m) for m in memory[::10]],
            "descriptors_max": max((d for _, d in samples), default=None),
            "tracebacks": printed.count("Traceback"),
            "too_many_open_files": printed.count("Too many open files"),
            "printed_lines": len(printed.splitlines()),
            "errors_counted": _metric(metrics, "keras_nmt_errors_total"),
            "died_with_status": exit_status,
        },
        "output_tail": printed.splitlines()[-12:],
    }


def _role(job):
    """One kind of client started in a process of its own, its job written to its stdin (all
    are started before any is awaited)."""
    process = subprocess.Popen(
        [sys.executable, "-m", "keras_nmt.workshop.benchmarks.serve_siege", "--role"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    process.stdin.write(json.dumps(job))
    process.stdin.close()
    return process


def _request_get(host, port, path):
    async def go():
        reader, writer = await asyncio.open_connection(host, port)
        writer.write(f"GET {path} HTTP/1.1\r\nHost: {host}\r\n\r\n".encode())
        lines = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
        headers = dict(line.lower().split(": ", 1) for line in lines[1:] if line)
        payload = await reader.readexactly(int(headers.get("content-length", 0)))
        writer.close()
        return int(lines[0].split(" ", 2)[1]), headers, payload

    return asyncio.run(go())


def _metric(text, name):
    match = re.search(rf"^{name} (\S+)$", text, re.MULTILINE)
    return float(match[1]) if match else None


def build_parser():
    parser = new_parser(__doc__, prog="python -m keras_nmt.workshop.benchmarks.serve_siege")
    parser.add_argument("model", nargs="?", help="a run folder or an export")
    parser.add_argument("--pair", default="en:de",
                        help="SRC:TGT the model is served under (default: %(default)s)")
    parser.add_argument("--descriptors", type=positive_int, default=1024,
                        help="the server's descriptor limit, ulimit -n (default: %(default)s)")
    parser.add_argument("--idle", type=int, default=1000,
                        help="idle connections (default: %(default)s)")
    parser.add_argument("--explorers", type=int, default=100,
                        help="concurrent explorer clients (default: %(default)s)")
    parser.add_argument("--translators", type=int, default=32,
                        help="concurrent translating clients (default: %(default)s)")
    parser.add_argument("--seconds", type=positive_float, default=60,
                        help="how long the clients press (default: %(default)s)")
    parser.add_argument("--warm-up", type=float, default=30,
                        help="seconds the translating clients send alone first, not measured "
                        "in memory (default: %(default)s)")
    parser.add_argument("--serve-args", default=None,
                        help="more flags for keras-nmt serve, in one string")
    parser.add_argument("--role", action="store_true", help=argparse.SUPPRESS)
    return parser


def main(argv=None):
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.role:  # one kind of client, its job as JSON on stdin
        return role_main(json.load(sys.stdin))
    if not args.model or not Path(args.model).exists():
        parser.exit(1, f"error: {args.model}: no such run folder or export\n")
    from keras_nmt.workshop.corpora.builtin import builtin_pairs  # noqa: PLC0415

    sentences = [source for source, _ in builtin_pairs("dates", "test")][:2000]
    result = siege(args.model, args.pair, args.descriptors, args.idle, args.explorers,
                   args.translators, args.seconds, (args.serve_args or "").split(), sentences,
                   args.warm_up)
    print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
