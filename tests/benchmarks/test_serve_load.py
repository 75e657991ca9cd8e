"""The serving load benchmark's offline references, without a server or a model."""

import json
import os
import subprocess
import sys
import time

import pytest

from keras_nmt.workshop.benchmarks import serve_load
from keras_nmt.workshop.benchmarks.load_clients import cpu_seconds


def test_requests_in_the_order_rounds_of_clients_send_them():
    batches = serve_load.client_requests([f"s{i}" for i in range(50)], clients=3, requests=4)
    assert [len(client) for client in batches] == [4, 4, 4]
    assert all(1 <= len(request) <= 8 for client in batches for request in client)
    order = serve_load.arrival_order(batches)
    first_round = batches[0][0] + batches[1][0] + batches[2][0]
    assert order[: len(first_round)] == first_round
    assert order[-len(batches[2][3]) :] == batches[2][3]
    assert sorted(order) == sorted(t for client in batches for r in client for t in r)


class _Recorder:
    """A translator that records each `translate_batch` call's texts, batch size and calls."""

    def __init__(self, calls_per_worker=1):
        self.calls, self.calls_per_worker = [], calls_per_worker

    def translate_batch(self, texts, batch_size=64, calls=None):
        self.calls.append((list(texts), batch_size, calls))
        return [None] * len(texts)


@pytest.mark.parametrize("calls_per_worker", [1, 3])
def test_offline_sorted_and_as_served_translate_the_same_sentences(monkeypatch, calls_per_worker):
    recorder = _Recorder(calls_per_worker)
    monkeypatch.setattr("keras_nmt.workshop.translators.open_translator.open_translator",
                        lambda path: recorder)
    batches = serve_load.client_requests([f"s{i:03}" for i in range(300)], clients=8,
                                         requests=5)
    texts = serve_load.arrival_order(batches)
    sorted_speed, served_speed = serve_load.offline_speed("run", batches, workers=2,
                                                          batch_size=16, repeats=2)
    assert sorted_speed > 0 and served_speed > 0
    warmup, *timed = recorder.calls
    assert warmup == (texts[:16], 16, None)
    # One call for the sorted pass (translate_batch sorts by length itself), then as the server:
    # one call per batch of 16 sentences per worker in arrival order, cut into the translator's
    # calls per worker. Two rounds, the second in the other order.
    whole = (texts, 16, None)
    chunks = [(texts[i : i + 32], len(texts[i : i + 32]), 2 * calls_per_worker)
              for i in range(0, len(texts), 32)]
    assert timed == [whole, *chunks, *chunks, whole]
    assert len(chunks[-1][0]) < 32


def test_the_server_is_warmed_up_by_the_clients_before_it_is_measured(monkeypatch):
    # It was warmed by 5 requests one after the other, so its first batches of the full size
    # (two graph calls at once) paid their first-time costs inside the measured run.
    class Server:
        host, port, process = "127.0.0.1", 1, type("Process", (), {"pid": os.getpid()})

        def __init__(self, pair, path, serve_args):
            pass

        def health(self):
            return {"mean_batch_size": 3.0, "largest_batch": 8}

        def stop(self):
            pass

    jobs = []

    def run(command, input, **kwargs):
        job = json.loads(input)
        jobs.append(job["requests"])
        latencies = [0.01] * sum(map(len, job["requests"]))
        measured = {"latencies": latencies, "sentences": 2 * len(latencies), "errors": 0,
                    "seconds": 1.0, "client_cpu_seconds": 0.1, "server_cpu_seconds": 0.5,
                    "memory_mb": {}}
        return subprocess.CompletedProcess(command, 0, stdout=json.dumps(measured))

    monkeypatch.setattr(serve_load, "_Server", Server)
    monkeypatch.setattr(serve_load.subprocess, "run", run)
    batches = serve_load.client_requests([f"s{i}" for i in range(50)], clients=3, requests=7)
    served = serve_load.load("run", "en:de", batches, max_seconds=60)
    assert jobs == [[client[:5] for client in batches], batches]
    assert served["requests"] == 21 and served["sentences"] == 42  # the measured run's only
    assert list(served["memory_mb"]) == ["after warm-up", "at the end"]


def test_a_process_cpu_time_is_read_as_the_process_itself_counts_it():
    # What the benchmark reads of the server (/proc/PID/stat, in clock ticks), checked on this
    # process against its own count, over a third of a second of work.
    before, own_before = cpu_seconds(os.getpid()), time.process_time()
    while time.process_time() - own_before < 0.3:
        sum(range(10_000))
    used, own = cpu_seconds(os.getpid()) - before, time.process_time() - own_before
    assert own >= 0.3
    assert abs(used - own) <= 0.03  # a few ticks of 10 ms


def test_help_imports_no_tensorflow():
    code = ("import json, sys\nfrom keras_nmt.workshop.benchmarks import serve_load\n"
            "try:\n    serve_load.main(['--help'])\nexcept SystemExit as exit:\n"
            "    print(json.dumps([exit.code, sorted(m for m in sys.modules\n"
            "          if m.split('.')[0] in ('tensorflow', 'keras'))]))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, check=True)
    assert json.loads(done.stdout.splitlines()[-1]) == [0, []]


def test_flags_the_server_refuses_are_named_in_one_line(capsys):
    # Unbalanced quotes are refused before anything runs; a flag the server refuses ends the
    # benchmark with the server's own error line, not a traceback without it.
    with pytest.raises(SystemExit) as exit:
        serve_load.main(["run", "--serve-args", "--max-batch '8"])
    assert (exit.value.code == 2
            and "--serve-args --max-batch '8: No closing quotation" in capsys.readouterr().err)
    with pytest.raises(RuntimeError, match="did not start: .*unrecognized arguments: --bogus"):
        serve_load._Server("en:de", "no-such-run", ["--bogus"])


@pytest.mark.parametrize("argv, status, message", [
    # Parsed as any `keras-nmt` flag is (`keras_nmt.workshop.arguments.Parser`): the value is named.
    (["run", "--clients", "0"], 2, "error: --clients 0: must be >= 1"),
    (["run", "--requests", "-3"], 2, "error: --requests -3: must be >= 1"),
    (["run", "--max-seconds", "nan"], 2, "error: --max-seconds nan: must be a finite number"),
    (["run", "--pair", "ende"], 2, "error: --pair ende: must be two language codes SRC:TGT"),
    (["run", "--pair", "en:de:fr"], 2, "error: --pair en:de:fr: must be two language codes"),
    # A file named "-", written in silence after the whole run, was the table.
    (["run", "--output", "-"], 2, "error: --output -: a lone dash is no value here"),
    (["run", "--sentences", "-"], 2, "error: --sentences -: a lone dash is no value here"),
    (["run", "--ser", "x"], 2, "unrecognized arguments: --ser"),
    # Found wrong before the run, not after it (an output) or in a traceback (a model).
    (["{tmp}", "--output", "{tmp}/missing/table.md"], 1, "the folder {tmp}/missing does not"),
    (["{tmp}", "--output", "{tmp}"], 1, "error: --output {tmp} is a folder"),
    (["{tmp}/no-such-run"], 1, "error: {tmp}/no-such-run: no such run folder or export"),
    (["{tmp}", "--sentences", "{tmp}/none.txt"], 1, "error: "),
    (["{tmp}", "--sentences", "{tmp}/blank.txt"], 1, "error: {tmp}/blank.txt has no sentences"),
])
def test_bad_flags_and_paths_fail_in_one_line_before_the_run(argv, status, message, tmp_path,
                                                             capsys, monkeypatch):
    (tmp_path / "blank.txt").write_text("\n  \n")
    ran = []
    monkeypatch.setattr(serve_load, "offline_speed", lambda *args: ran.append(args))
    with pytest.raises(SystemExit) as exit:
        serve_load.main([word.format(tmp=tmp_path) for word in argv])
    err = capsys.readouterr().err
    errors = [line for line in err.splitlines() if "error: " in line]
    assert exit.value.code == status and len(errors) == 1 and not ran, err
    assert message.format(tmp=tmp_path) in errors[0]
    assert list(tmp_path.iterdir()) == [tmp_path / "blank.txt"]
