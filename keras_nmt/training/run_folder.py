"""Re-using a run folder: refuse other options, say when the run is finished, start afresh.

A run folder belongs to one command. Re-running that command resumes it (from its backup) or,
when it has finished, does nothing; re-running with options that change the data, the
tokenizers, the model or the optimisation is refused, naming the options, because the saved
tokenizers and weights would silently be mixed with the new options.

Example:
    >>> differing_options({"tokenizer": "char", "verbose": 1}, {"tokenizer": "word", "verbose": 2})
    ['tokenizer (char in the folder, word now)']
"""

import dataclasses
import json
import shutil
from pathlib import Path

from keras_nmt.training.checkpoint_average import AVERAGE_DIR
from keras_nmt.training.precision import PrecisionChoice, resolve_precision
from keras_nmt.training.time_budget import BUDGET_POINT_FILE, BUDGET_WEIGHTS_FILE

# Options that change what is logged or when, never the trained weights: they may differ.
# (`epochs` may grow: epoch e is the same whatever the total, so a longer run continues.)
HARMLESS_OPTIONS = (
    "epochs", "output", "verbose", "samples", "backup_every", "time_budget", "run_eagerly",
)
FINISHED_FILE = "finished.json"
# The precision policy `--precision auto` chose when the run started: a resumed run keeps it
# (a fresh measurement on a loaded machine could choose otherwise and change the weights).
PRECISION_FILE = "precision.json"
# The seconds a `--time-budget` run has trained, over all its processes (`TimeBudget`).
TIME_SPENT_FILE = "time_spent.json"
# Everything `train` writes into a run folder (what `--fresh` deletes; nothing else is touched).
RUN_FILES = (
    "config.json", "model.keras", "history.json", "hypotheses.txt", FINISHED_FILE, PRECISION_FILE,
    TIME_SPENT_FILE, BUDGET_WEIGHTS_FILE, BUDGET_POINT_FILE, "tokenizers", "backup", "logs",
    AVERAGE_DIR,
    # `atomic_path`'s temporary files, left by a kill during a write.
    ".model.keras", ".history.json", f".{TIME_SPENT_FILE}", f".{BUDGET_WEIGHTS_FILE}",
    f".{BUDGET_POINT_FILE}",
)


class RunFolderError(ValueError):
    """The run folder holds a run made with other options."""


def differing_options(saved, new):
    """Names (with both values) of the options that differ and matter, in `new`'s order."""
    return [
        f"{name} ({saved.get(name)} in the folder, {value} now)"
        for name, value in new.items()
        if name not in HARMLESS_OPTIONS and saved.get(name) != value
    ]


def check_run_folder(config, config_file):
    """Raises `RunFolderError` when `config_file` (an earlier run's) differs from `config`."""
    path = Path(config_file)
    if not path.exists():
        return
    saved = json.loads(path.read_text())
    differing = differing_options(saved, json.loads(json.dumps(dataclasses.asdict(config))))
    if differing:
        raise RunFolderError(
            f"{path.parent} holds a run made with other options: {'; '.join(differing)}. "
            "Re-run with the same options to resume it, choose another --output, or add "
            "--fresh to delete it and start again"
        )


def finished_epochs(run):
    """The epoch count a finished run in `run` was trained for, or `None` if unfinished."""
    path = Path(run) / FINISHED_FILE
    return json.loads(path.read_text())["epochs"] if path.exists() else None


def mark_finished(run, epochs):
    """Records that the run in `run` finished after being asked for `epochs` epochs."""
    (Path(run) / FINISHED_FILE).write_text(json.dumps({"epochs": epochs}) + "\n")


def clear_run_folder(run):
    """Deletes what `train` wrote in `run` (only those names: the folder may hold more)."""
    for name in RUN_FILES:
        path = Path(run) / name
        if path.is_dir():
            shutil.rmtree(path)
        elif path.exists():
            path.unlink()


def prepare_run_folder(config, fresh=False):
    """Checks `config.output` before training; returns whether its run is already finished.

    Args:
        config: the `TrainConfig` about to be trained.
        fresh: delete what an earlier run wrote there first.

    Raises:
        RunFolderError: the folder holds a run made with other options.
    """
    run = Path(config.output)
    if fresh:
        clear_run_folder(run)
    check_run_folder(config, run / "config.json")
    done = finished_epochs(run)
    return done is not None and done >= config.epochs and (run / "model.keras").exists()


def run_precision(run, requested, shapes=None):
    """The `PrecisionChoice` of a run: the one recorded in `run`, else `resolve_precision`'s.

    `shapes`: the model's `step_matmul_shapes`, timed by `auto` on some CPUs (see `precision`).
    """
    path = Path(run) / PRECISION_FILE
    if path.exists():
        recorded = json.loads(path.read_text())
        reason = f"recorded when the run started: {recorded['reason']}"
        return PrecisionChoice(recorded["policy"], reason, measurement=recorded.get("measurement"))
    return resolve_precision(requested, shapes=shapes)


def record_precision(run, choice):
    """Writes the chosen policy, and the timing behind it if any, into `run` (`run_precision`)."""
    path = Path(run) / PRECISION_FILE
    if not path.exists():
        record = {"policy": choice.policy, "reason": choice.reason}
        if choice.measurement is not None:
            record["measurement"] = choice.measurement
        path.write_text(json.dumps(record) + "\n")
