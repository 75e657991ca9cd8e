"""Real-signal trials: SIGINT or SIGTERM at random moments to real `keras-nmt` processes.

Each trial starts a command, waits a random time within its usual life (start-up, imports,
work, writing: up to 90% of the longest re-run of that command so far, so that the moments
follow the machine's load), sends SIGINT or SIGTERM (alternately), and checks that the process
ended with 130 / 143 (or 0 / 1 when it had already finished), printed at most one line to
stderr and no traceback, and left nothing half-written that the next command trips on (the same
command, re-run, succeeds). A signal that comes before keras_nmt's handlers are in place (Python
itself still starting: about 0.1 s, longer on a loaded machine) ends the process Python's own
way (-2 / -15) and is counted so, not as a failure. Prints one line per trial and a summary
table (Markdown) of the outcomes at the end.

    python tests/adversarial/signal_trials.py --trials 30            # every command
    python tests/adversarial/signal_trials.py --trials 5 --commands translate export

The tests run a small version (`test_signal_trials`); docs/reliability.md records a full run.
"""

import argparse
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

COMMANDS = ("train", "translate", "export", "ctranslate2")
OUTCOMES = ("ended by the signal", "finished first", "start-up", "failed")


def command_line(name, work, runs):
    """The argv of command `name` writing under `work` (`runs`: prepared run folders)."""
    if name == "train":
        return ["train", "--output-dir", str(work / "run"), "--epochs", "1", "--units", "8",
                "--embedding-dim", "8", "--train-size", "300", "--valid-size", "8",
                "--batch-size", "16", "--samples", "0", "--verbose", "0", "--backup-every", "5"]
    if name == "translate":
        return ["translate", str(runs["lstm"]), "--input", str(runs["input"]), "--output",
                str(work / "out.txt")]
    if name == "export":
        return ["export", str(runs["lstm"]), "--output-dir", str(work / "saved"),
                "--max-beam-size", "1"]
    return ["export", str(runs["transformer"]), "--format", "ctranslate2", "--output-dir",
            str(work / "ct2")]


def start(argv):
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TF_CPP_MIN_LOG_LEVEL": "3"}
    return subprocess.Popen([sys.executable, "-m", "keras_nmt", *argv], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


def trial(name, work, runs, delay, signum):
    """One trial; returns (outcome, description, seconds the re-run took).

    The outcome is one of OUTCOMES: "failed" when anything above went wrong.
    """
    argv = command_line(name, work, runs)
    process = start(argv)
    time.sleep(delay)
    sent = process.poll() is None
    # "default": Python is still starting, and the signal ends it its own way.
    state = disposition(process.pid, signum) if sent else None
    if sent:
        process.send_signal(signum)
    began = time.monotonic()
    _, err = process.communicate(timeout=600)
    exit_seconds = time.monotonic() - began
    expected = {signal.SIGINT: 130, signal.SIGTERM: 143}[signum]
    lines = err.strip().splitlines()
    problems = []
    if sent and process.returncode not in (expected, 0) and (
            state != "default" or process.returncode != -signum):
        problems.append(f"rc {process.returncode}")
    if "Traceback" in err or "Fatal Python error" in err or len(lines) > 1:
        problems.append(f"{len(lines)} lines: {err.strip()[-300:]!r}")
    # The next command must not trip on what was left.
    again = start(argv + (["--force"] if name == "ctranslate2" else []))
    began = time.monotonic()
    _, err_again = again.communicate(timeout=900)
    life = time.monotonic() - began
    if again.returncode != 0:
        problems.append(f"re-run rc {again.returncode}: {err_again.strip()[-300:]!r}")
    said = lines[-1] if lines else {"default": "before keras_nmt's handlers: Python's own "
                                     "start-up", "ignored": "after the command had finished "
                                     "(signals ignored while it exits)"}.get(state, "")
    outcome = ("failed" if problems else "start-up" if state == "default"
               else "ended by the signal" if process.returncode == expected else "finished first")
    return outcome, life, (f"{name:12} {signal.Signals(signum).name:7} at {delay:5.2f} s: rc "
                          f"{process.returncode}, exit {exit_seconds:.1f} s after the signal; "
                          f"{'; '.join(problems) or said}")


def disposition(pid, signum):
    """How process `pid` takes `signum` now: "caught" (keras_nmt.workshop.interruption's handlers),
    "ignored" (the command has finished and said so: `interruption.exit_now`), "gone" (it has
    exited) or "default" (Python itself still starting)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return "gone"
    if re.search(r"State:\s*Z", status):
        return "gone"
    bit = 1 << (signum - 1)
    for field, meaning in (("SigCgt", "caught"), ("SigIgn", "ignored")):
        if int(re.search(field + r":\s*([0-9a-f]+)", status)[1], 16) & bit:
            return meaning
    return "default"


def handles(pid, signum):
    """Whether process `pid` has installed a handler of `signum`
    (keras_nmt.workshop.interruption)."""
    return disposition(pid, signum) == "caught"


def prepare(directory, commands):
    """The run folders that `commands` need (the Transformer only for ctranslate2)."""
    from tests.export.helpers import make_run_folder  # noqa: PLC0415  (loads TensorFlow)

    runs = {"lstm": make_run_folder(directory / "lstm"), "input": directory / "input.txt"}
    if "ctranslate2" in commands:
        runs["transformer"] = make_run_folder(directory / "transformer", name="transformer")
    runs["input"].write_text("3rd of March 2021\n" * 20_000, encoding="utf-8")
    return runs


# The first trial's window of random moments (seconds after the start): short, as on an idle
# 2-core CPU. It grows to 90% of the longest re-run of that command seen so far (a re-run that
# finds the work done is short, so the longest, not the last).
FIRST_WINDOWS = {"train": 12.0, "translate": 8.0, "export": 10.0, "ctranslate2": 10.0}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], allow_abbrev=False)
    parser.add_argument("--trials", type=int, default=30, help="trials per command")
    parser.add_argument("--commands", nargs="+", choices=COMMANDS, default=list(COMMANDS))
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    counts = {}
    with tempfile.TemporaryDirectory() as directory:
        runs = prepare(Path(directory), args.commands)
        for name in args.commands:
            counts[name] = dict.fromkeys(OUTCOMES, 0)
            window = FIRST_WINDOWS[name]
            for index in range(args.trials):
                work = Path(directory) / f"{name}-{index}"
                work.mkdir()
                signum = (signal.SIGINT, signal.SIGTERM)[index % 2]
                delay = rng.uniform(0.1, window)
                outcome, life, text = trial(name, work, runs, delay, signum)
                window = max(window, 0.9 * life)
                counts[name][outcome] += 1
                print(("FAIL " if outcome == "failed" else "ok   ") + text, flush=True)
    columns = ["command", "trials", *OUTCOMES]
    print("\n| " + " | ".join(columns) + " |\n" + "|---" * len(columns) + "|")
    for name, count in counts.items():
        print(f"| {name} | {args.trials} | " + " | ".join(str(count[o]) for o in OUTCOMES) + " |")
    return 1 if any(count["failed"] for count in counts.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
