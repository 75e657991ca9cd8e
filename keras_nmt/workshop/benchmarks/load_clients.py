"""The load test's clients: concurrent LibreTranslate clients in a process of their own.

`serve_load` runs this module as a subprocess, so that the clients share neither a Python
interpreter (its GIL) nor an event loop with the server or with the benchmark, and so that
they cost as little CPU as a client can: one asyncio task per client, each with one keep-alive
HTTP/1.1 connection over localhost, sending its requests one after the other (a new one once
the last is answered). An answer counts as an error unless it is a 200 whose JSON body
translates every sentence sent (`translatedText`, a list of as many strings).

Input (JSON on stdin): `{"host", "port", "source", "target", "requests": [[[str]]] (per client,
its requests, each a list of sentences), "max_seconds", "server_pid"}`. Output (one JSON line
on stdout): `{"latencies": [s per request], "sentences", "errors", "seconds" (wall time of all
the requests), "client_cpu_seconds" (this process's), "server_cpu_seconds" (the server's over
the same time, when `server_pid` is given), "memory_mb" (the server's resident memory after half
the requests)}`. Imports no TensorFlow.

Example:
    $ echo '{"host": "127.0.0.1", "port": 5000, ...}' \\
        | python -m keras_nmt.workshop.benchmarks.load_clients
"""

import asyncio
import json
import os
import re
import sys
import time
from pathlib import Path


def resident_mb(pid):
    """A process's resident memory (VmRSS) in MiB (Linux)."""
    status = Path(f"/proc/{pid}/status").read_text()
    return int(re.search(r"VmRSS:\s+(\d+) kB", status)[1]) / 1024


def cpu_seconds(pid):
    """The CPU time (user + system) a process has used so far, in seconds (Linux)."""
    # The fields after the command name, which is in parentheses and may hold spaces.
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    utime, stime = int(fields[11]), int(fields[12])  # fields 14 and 15 of proc(5)
    return (utime + stime) / os.sysconf("SC_CLK_TCK")


class _Connection:
    """One keep-alive HTTP/1.1 connection: `post(path, body) -> (status, body bytes)`."""

    def __init__(self, host, port):
        self.host, self.port = host, port
        self.reader = self.writer = None

    async def post(self, path, body):
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        head = (f"POST {path} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\n"
                f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n")
        self.writer.write(head.encode("ascii") + body)
        lines = (await self.reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
        status = int(lines[0].split(" ", 2)[1])
        headers = dict(line.lower().split(": ", 1) for line in lines[1:] if line)
        payload = await self.reader.readexactly(int(headers["content-length"]))
        if headers.get("connection") == "close":
            self.close()
        return status, payload

    def close(self):
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = None


async def run_clients(host, port, source, target, requests, max_seconds, server_pid=None):
    """Sends every client's requests (see the module); returns the measurements."""
    latencies, counts, memory = [], {"sentences": 0, "errors": 0}, {}
    half = sum(map(len, requests)) // 2
    deadline = time.monotonic() + max_seconds

    async def client(texts_of_requests):
        connection = _Connection(host, port)
        for texts in texts_of_requests:
            if time.monotonic() > deadline:
                break
            body = json.dumps({"q": texts, "source": source, "target": target}).encode()
            start = time.perf_counter()
            try:
                status, payload = await connection.post("/translate", body)
                answer = json.loads(payload) if status == 200 else None
                good = (isinstance(answer, dict)
                        and isinstance(answer.get("translatedText"), list)
                        and len(answer["translatedText"]) == len(texts))
            except (OSError, asyncio.IncompleteReadError, ValueError, KeyError, IndexError):
                good = False
                connection.close()
            latencies.append(time.perf_counter() - start)
            counts["sentences"] += len(texts)
            counts["errors"] += not good
            if len(latencies) == half and server_pid is not None:
                memory["after half the requests"] = resident_mb(server_pid)
        connection.close()

    server_cpu = None if server_pid is None else cpu_seconds(server_pid)
    cpu, start = time.process_time(), time.perf_counter()
    await asyncio.gather(*(client(texts) for texts in requests))
    seconds = time.perf_counter() - start
    measured = {"latencies": latencies, **counts, "seconds": seconds,
                "client_cpu_seconds": time.process_time() - cpu, "memory_mb": memory}
    if server_pid is not None:
        measured["server_cpu_seconds"] = cpu_seconds(server_pid) - server_cpu
    return measured


def main():
    job = json.load(sys.stdin)
    result = asyncio.run(run_clients(
        job["host"], job["port"], job["source"], job["target"], job["requests"],
        job["max_seconds"], job.get("server_pid")))
    print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
