"""Counts the path of one sentence from `keras-nmt translate` to a model's `decode_step`.

Runs `keras-nmt translate RUN "3rd of March 2021"` in this process and records the Python
stack the first time a model's `decode_step` is called: the keras_nmt frames of the main thread
down to `translate_batch`, then those of the worker thread that calls the graph (batches run in
a thread pool). Prints each hop (module, class, function) and the counts of modules, hops and
classes. Without RUN it trains a tiny run (one epoch of 64 dates) in a temporary folder; FLAGS
go to `keras-nmt translate` (e.g. --beam-size 2).

    python docs/architecture/translate_path.py [RUN [FLAGS...]]
"""

import inspect
import os
import re
import sys
import tempfile
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
# Functions that autograph (`tf.function`) writes for an `if` statement: not hops of ours.
AUTOGRAPH_BRANCH = re.compile(r"^(if|else)_body(_\d+)?$")


def own_frames(frame):
    """keras_nmt frames from the outermost to `frame`: (module, class or "", function).

    Inside `tf.function` autograph runs converted copies (`tf__NAME` in a temporary file):
    their globals still name the module they came from.
    """
    hops = []
    while frame is not None:
        module = frame.f_globals.get("__name__", "")
        function = frame.f_code.co_name.removeprefix("tf__")
        if module.startswith("keras_nmt") and not AUTOGRAPH_BRANCH.match(function):
            owner = frame.f_locals.get("self", frame.f_locals.get("cls"))
            owner = owner if inspect.isclass(owner) else type(owner) if owner is not None else None
            hops.append((module, owner.__name__ if owner else "", function))
        frame = frame.f_back
    return hops[::-1]


def main(run=None, *flags):
    from keras_nmt.workshop.cli import main as keras_nmt

    if run is None:
        run = os.path.join(tempfile.mkdtemp(), "run")
        keras_nmt(["train", "--epochs", "1", "--train-size", "64", "--valid-size", "8",
                   "--units", "8", "--embedding-dim", "8", "--verbose", "0", "--samples", "0",
                   "--validation-sentences", "8", "--output-dir", run])
    found = {}

    def profile(frame, event, arg):
        if event != "call" or "main" in found and "worker" in found:
            return
        name = frame.f_code.co_name
        if name == "translate_batch" and threading.current_thread() is threading.main_thread():
            found.setdefault("main", own_frames(frame))
        elif name.endswith("decode_step") and frame.f_globals.get("__name__", "").startswith(
                "keras_nmt.models"):
            found.setdefault("worker", own_frames(frame))

    threading.setprofile(profile)
    sys.setprofile(profile)
    try:
        keras_nmt(["translate", run, "3rd of March 2021", *flags])
    finally:
        sys.setprofile(None)
        threading.setprofile(None)
    worker = found["worker"]
    start = next(i for i, hop in enumerate(worker) if hop[2] == "translate")  # the pool's task
    hops = found["main"] + worker[start:]
    for module, owner, function in hops:
        print(f"{module:42s} {owner + '.' if owner else ''}{function}")
    modules = {module for module, _, _ in hops}
    classes = {owner for _, owner, _ in hops if owner}
    print(f"{len(modules)} modules, {len(hops) - 1} hops, {len(classes)} classes")


if __name__ == "__main__":
    main(*sys.argv[1:])
