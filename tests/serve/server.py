"""Starting `keras-nmt serve` as a subprocess on a free localhost port, for the server tests."""

import json
import os
import re
import resource
import selectors
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

from keras_nmt.workshop.benchmarks.serve_load import read_counters
from tests.export.helpers import make_run_folder

REPO = Path(__file__).resolve().parents[2]


def make_runs(root):
    """Two tiny untrained run folders: a Transformer (pair recorded as at training) and a
    Luong model (pair given on the command line)."""
    transformer = make_run_folder(root / "transformer", "transformer", "subclassed")
    config = json.loads((transformer / "config.json").read_text())
    (transformer / "config.json").write_text(json.dumps({**config, "languages": "es,en"}))
    luong = make_run_folder(root / "luong", "luong", "functional")
    return transformer, luong


class Server:
    """`python -m keras_nmt serve ARGS --port 0`; `url` once it listens; `stop()` ends it."""

    def __init__(self, *args, timeout=180, descriptors=None):
        """`descriptors`: the server's descriptor limit (`ulimit -n`), else this process's."""
        # As a user starts it: the server's own quiet defaults, not the tests' log level.
        env = {**{k: v for k, v in os.environ.items() if k != "TF_CPP_MIN_LOG_LEVEL"},
               "PYTHONUNBUFFERED": "1"}

        def limit():
            resource.setrlimit(resource.RLIMIT_NOFILE,
                               (descriptors, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))

        self.process = subprocess.Popen(
            [sys.executable, "-m", "keras_nmt", "serve", *map(str, args), "--port", "0"],
            cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
            preexec_fn=limit if descriptors else None,
        )
        self.output = []
        selector = selectors.DefaultSelector()
        selector.register(self.process.stdout, selectors.EVENT_READ)
        deadline = time.monotonic() + timeout
        self.url = None
        while self.url is None:
            if time.monotonic() > deadline or self.process.poll() is not None:
                self.stop()
                raise RuntimeError("the server did not start:\n" + "".join(self.output))
            if selector.select(timeout=1):
                line = self.process.stdout.readline()
                self.output.append(line)
                match = re.match(r"serving on (http://\S+)", line)
                if match:
                    self.url = match[1]

    def printed(self):
        """All the server has printed so far (read without waiting)."""
        os.set_blocking(self.process.stdout.fileno(), False)
        try:
            while chunk := self.process.stdout.read():
                self.output.append(chunk)
        except (BlockingIOError, TypeError):  # nothing more yet
            pass
        finally:
            os.set_blocking(self.process.stdout.fileno(), True)
        return "".join(self.output)

    def stop(self):
        """Ends the server; `output` then holds all it printed."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if not self.process.stdout.closed:
            self.output.append(self.process.stdout.read())
            self.process.stdout.close()


def request(url, body=None, *, method=None, headers=None, raw=None):
    """`(status, parsed JSON or text)` of one HTTP request; `body` is sent as JSON."""
    data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
    headers = {"Content-Type": "application/json", **(headers or {})} if data is not None \
        else (headers or {})
    req = urllib.request.Request(url, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=120) as response:
            status, text = response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        status, text = error.code, error.read().decode()
    try:
        return status, json.loads(text)
    except ValueError:
        return status, text


def counters(url):
    """The server's counters, read from its `/metrics` (`serve_load.read_counters`) and, from
    the same answer, its garbage collector's gauges: `gc_collections` (per generation) and
    `gc_frozen_objects`."""
    with urllib.request.urlopen(url + "metrics", timeout=120) as response:
        assert response.headers["content-type"].startswith("text/plain; version=0.0.4")
        text = response.read().decode()
    values = read_counters(text)
    generations = re.findall(r'^keras_nmt_gc_collections\{generation="(\d)"\} (\S+)$', text,
                             re.MULTILINE)
    values["gc_collections"] = [float(count) for _, count in generations]
    values["gc_frozen_objects"] = float(
        re.search(r"^keras_nmt_gc_frozen_objects (\S+)$", text, re.MULTILINE)[1])
    return values
