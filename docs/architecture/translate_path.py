"""Counts the path of one sentence from the Python API (or `keras-nmt translate`) to a model's
`decode_step`.

Calls `keras_nmt.open_translator(RUN)(["3rd of March 2021"])` (greedy, then a beam of 2) and
records the Python stack the first time a model's `decode_step` is called: the keras_nmt
frames of the calling thread down to `translate_batch`, then those of the pool's thread that
calls the graph (batches run in a thread pool; inside `tf.function` a traced function's frames
are its own). Prints each frame (module, class, function) and the counts: frames, `decode_step`
included, and modules, the model's included. With `--cli`, the same for `keras-nmt translate RUN
"3rd of March 2021" FLAGS...`. Without RUN it trains a tiny run (one epoch of 64 dates) in a
temporary folder. `tests/test_translate_path.py` checks the counts and the figures that
docs/architecture.md gives.

    python docs/architecture/translate_path.py [RUN] [--cli [FLAGS...]]
"""

import inspect
import os
import sys
import tempfile
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
SENTENCE = "3rd of March 2021"


def own_frames(frame):
    """keras_nmt frames from the outermost to `frame`: (module, class or "", function)."""
    frames = []
    while frame is not None:
        module = frame.f_globals.get("__name__", "")
        if module.startswith("keras_nmt"):
            owner = frame.f_locals.get("self", frame.f_locals.get("cls"))
            owner = owner if inspect.isclass(owner) else type(owner) if owner is not None else None
            frames.append((module, owner.__name__ if owner else "", frame.f_code.co_name))
        frame = frame.f_back
    return frames[::-1]


def recorded_path(translate):
    """The frames from the caller's first `translate_batch` to the first `decode_step` while
    `translate()` runs: those of the calling thread, then those of the thread calling the
    graph (the pool's; the same thread when a batch is translated in the caller's)."""
    found = {}
    caller = threading.current_thread()

    def profile(frame, event, arg):
        if event != "call" or "worker" in found:
            return
        name = frame.f_code.co_name
        if name == "translate_batch" and threading.current_thread() is caller:
            found.setdefault("main", own_frames(frame))
        elif name.endswith("decode_step") and frame.f_globals.get("__name__", "").startswith(
                "keras_nmt.models"):
            found["worker"] = own_frames(frame)

    threading.setprofile(profile)
    sys.setprofile(profile)
    try:
        translate()
    finally:
        sys.setprofile(None)
        threading.setprofile(None)
    main, worker = found["main"], found["worker"]
    if worker[: len(main)] == main:  # decoded in the caller's thread
        return worker
    return main + worker


def api_path(run, **options):
    """The frames of `keras_nmt.open_translator(run)([SENTENCE], **options)` (a fresh
    translator: its first call traces the graph, so the Python frames are on the stack)."""
    import keras_nmt

    translator = keras_nmt.open_translator(run)
    return recorded_path(lambda: translator([SENTENCE], **options))


def cli_path(run, *flags):
    """The frames of `keras-nmt translate RUN SENTENCE FLAGS...` in this process."""
    from keras_nmt.workshop.cli import main as keras_nmt

    return recorded_path(lambda: keras_nmt(["translate", str(run), SENTENCE, *flags]))


def counts(frames):
    """`(frames, modules)`: `decode_step` and the model's module included."""
    return len(frames), len({module for module, _, _ in frames})


def show(title, frames):
    print(f"{title}: {counts(frames)[0]} frames in {counts(frames)[1]} modules")
    for module, owner, function in frames:
        print(f"  {module:44s} {owner + '.' if owner else ''}{function}")


def tiny_run():
    """A run folder trained for one epoch on 64 dates, in a temporary folder."""
    from keras_nmt.workshop.cli import main as keras_nmt

    run = os.path.join(tempfile.mkdtemp(), "run")
    keras_nmt(["train", "--epochs", "1", "--train-size", "64", "--valid-size", "8",
               "--units", "8", "--embedding-dim", "8", "--verbose", "0", "--samples", "0",
               "--validation-sentences", "8", "--output-dir", run])
    return run


def main(*args):
    cli = "--cli" in args
    args = list(args)
    flags = args[args.index("--cli") + 1 :] if cli else []
    args = args[: args.index("--cli")] if cli else args
    run = args[0] if args else tiny_run()
    if cli:
        show("keras-nmt translate " + " ".join(flags), cli_path(run, *flags))
        return
    show("greedy", api_path(run))
    show("beam search, beam_size=2", api_path(run, beam_size=2))


if __name__ == "__main__":
    main(*sys.argv[1:])
