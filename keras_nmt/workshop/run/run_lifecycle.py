"""Re-using a run folder: one training at a time, other options refused, failed starts undone.

A run folder belongs to one command. Re-running that command resumes it (from its backup) or,
when it has finished, does nothing; re-running with options that change the data, the
tokenizers, the model or the optimisation is refused, naming the options, because the saved
tokenizers and weights would silently be mixed with the new options. A training holds the
folder's lock (`lock_run_folder`: the one lock of a folder, whoever writes it, that an import
or an export takes too) for its whole life, so a second training, or an import, into the same
folder is refused. The file names are `keras_nmt.workshop.run.run_folder`'s.

Example:
    >>> differing_options({"tokenizer": "char", "verbose": 1}, {"tokenizer": "word", "verbose": 2})
    ['tokenizer (char in the folder, word now)']
"""

import contextlib
import dataclasses
import json
import shutil
from pathlib import Path

from keras_nmt.plural import plural
from keras_nmt.saved_files import read_json
from keras_nmt.workshop.atomic_file import temporary_pattern, write_json
from keras_nmt.workshop.corpora.corpus import corpus_paths, first_line_is_header, has_splits
from keras_nmt.workshop.corpora.data_profile import changed_file, file_fingerprint, profile_pairs
from keras_nmt.workshop.owned_folder import folder_lock
from keras_nmt.workshop.run.precision import PrecisionChoice, resolve_precision
from keras_nmt.workshop.run.provenance import (
    PROVENANCE_FILE,
    record_run_provenance,
    run_attribution,
)
from keras_nmt.workshop.run.run_folder import (
    BACKUP_DIR,
    BACKUP_STATE_FILE,
    CONFIG_FILE,
    DATA_FILE,
    FINISHED_FILE,
    HISTORY_FILE,
    MODEL_FILE,
    PRECISION_FILE,
    TRAIN_FILES,
    RunFolder,
    run_columns,
    temporary_name,
)

# Options that change what is logged or when, never the trained weights: they may differ.
# (`epochs` may grow: epoch e is the same whatever the total, so a longer run continues.)
HARMLESS_OPTIONS = (
    "epochs", "output", "verbose", "samples", "backup_every", "time_budget", "run_eagerly",
    "languages",
)
# The folders this process holds locked (`lock_run_folder`), resolved.
_HELD = set()


class RunFolderError(ValueError):
    """The run folder cannot be used: other options, another training in it, a damaged file."""


def read_run_json(path):
    """The JSON value of a run-folder file; `RunFolderError` naming it when it is damaged."""
    return read_json(path, f"add --fresh to delete what the run in {Path(path).parent} wrote "
                     "and start again", error=RunFolderError)


def differing_options(saved, new):
    """Names (with both values) of the options that differ and matter, in `new`'s order."""
    return [
        f"{name} ({saved.get(name)} in the folder, {value} now)"
        for name, value in new.items()
        if name not in HARMLESS_OPTIONS and saved.get(name) != value
    ]


# Keys every run's `config.json` has had: a `config.json` without them is somebody else's.
RUN_CONFIG_KEYS = ("model", "api", "tokenizer", "data", "output")


def check_holds_no_foreign_run_files(run):
    """Raises `RunFolderError` when the folder `run` holds names a run writes (`TRAIN_FILES`)
    that are not a run's: training would write into them, and `--fresh` or a start that fails
    would delete them.

    A folder holding a run, or nothing of a run's (files of other names are never touched),
    passes, and so does a run's damaged `config.json` (`check_run_folder` names it, `--fresh`
    replaces it).
    """
    run = Path(run)
    config = run / CONFIG_FILE
    if config.is_file():
        missing = _run_keys_missing(config)
        if missing:
            raise RunFolderError(
                f"{config} is not a run's (it has no {', '.join(missing)}): {run} holds "
                "something else, which training would write into and --fresh delete; train "
                "into another --output-dir")
        return
    found = [name for name in TRAIN_FILES if (run / name).exists()]
    if found:
        raise RunFolderError(
            f"{run} holds {', '.join(found)} but no run (no {CONFIG_FILE}): training would "
            "write into them, and --fresh or a start that fails would delete them; train into "
            "another --output-dir, or move them out")


def holds_a_run(folder):
    """Whether `folder` holds a run (a `config.json` with the keys every run's has): what
    `import --force` may replace."""
    return _run_keys_missing(Path(folder) / CONFIG_FILE) == []


def _run_keys_missing(config):
    """The `RUN_CONFIG_KEYS` the `config.json` at `config` lacks; None when it cannot be read
    (damaged, or absent)."""
    try:
        saved = json.loads(Path(config).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return None
    return [key for key in RUN_CONFIG_KEYS if not isinstance(saved, dict) or key not in saved]


def check_run_folder(config, config_file):
    """Raises `RunFolderError` when `config_file` (an earlier run's) differs from `config`."""
    path = Path(config_file)
    if not path.exists():
        return
    # A field added since the folder's run was made has its default there.
    saved = {**dataclasses.asdict(type(config)()), **read_run_json(path)}
    new = json.loads(json.dumps(dataclasses.asdict(config)))
    for options in (saved, new):  # the columns read, however they were named
        options["source_column"], options["target_column"] = run_columns(options)
    differing = differing_options(saved, new)
    if differing:
        raise RunFolderError(
            f"{path.parent} holds a run made with other options: {'; '.join(differing)}. "
            "Re-run with the same options to resume it, choose another --output-dir, or add "
            "--fresh to delete it and start again"
        )


def record_languages(config):
    """Records `config.languages` (`"es,en"`) in the `config.json` of the run in
    `config.output` when it holds other ones and the same options otherwise (a fact added to a
    run: nothing is trained again); returns whether it did.

    Raises:
        RunFolderError: the run was made with other options (nothing is written).
        FolderError: a training or an import holds the folder (nothing is written).
    """
    run = Path(config.output)
    path = run / CONFIG_FILE
    if config.languages is None or not holds_a_run(run):
        return False
    saved = read_run_json(path)
    if saved.get("languages") == config.languages:
        return False
    check_run_folder(config, path)
    check_not_locked(run)  # a training or an import at work in it
    write_json(path, {**saved, "languages": config.languages}, indent=2)
    return True


def finished_record(run):
    """The `finished.json` of a finished run in `run` (`mark_finished`), or `None`."""
    path = Path(run) / FINISHED_FILE
    return read_run_json(path) if path.exists() else None


def mark_finished(run, epochs, trained=None, time_budget=None):
    """Records that the run in `run` finished after being asked for `epochs` epochs, having
    trained `trained` (fractional) epochs; `time_budget`: the minutes that stopped it early."""
    record = {"epochs": epochs, "trained_epochs": trained}
    if time_budget is not None:
        record["time_budget"] = time_budget
    write_json(Path(run) / FINISHED_FILE, record)


def is_finished(config, record):
    """Whether a run whose `finished.json` is `record` has nothing left to train for `config`:
    its epochs were all asked for, and no larger time budget lets a budget-stopped run go on."""
    if record is None or record["epochs"] < config.epochs:
        return False
    stopped_by = record.get("time_budget")
    return stopped_by is None or (config.time_budget or float("inf")) <= stopped_by


def record_missing_provenance(run):
    """Writes the `provenance.json` a finished run lacks (written by older code, or deleted):
    its tokenizers' fingerprints and its weights' as they are now, after opening it as every
    command does (`RunFolder.load`: their sizes must be the model's), so that from now on
    another model's tokenizers are refused. Returns the file written, or None (the run has
    its record, or no model)."""
    run = Path(run)
    if (run / PROVENANCE_FILE).exists() or not (run / MODEL_FILE).exists():
        return None
    with lock_run_folder(run):
        model = RunFolder.load(run).model
        record_run_provenance(run, run_attribution(run), model)
    return run / PROVENANCE_FILE


def finished_message(config, record):
    """What re-running a finished run says: how it ended and how to continue."""
    run = config.output
    if record.get("time_budget") is not None:
        return (f"{run} stopped at its time budget of {plural(record['time_budget'], 'minute')} "
                f"after {record.get('trained_epochs'):g} of {plural(record['epochs'], 'epoch')}: "
                "nothing to do. A larger --time-budget (it counts the whole run) trains on from "
                "its backup; --fresh starts again")
    return (f"{run} is finished ({plural(record['epochs'], 'epoch')}): nothing to do. Raise "
            "--epochs to train on, or add --fresh to start again")


def clear_run_folder(run):
    """Deletes what `train` wrote in `run` (only those names: the folder may hold more)."""
    for name in TRAIN_FILES:
        leftovers = Path(run).glob(temporary_pattern(name)) if Path(run).is_dir() else []
        for path in (Path(run) / name, Path(run) / temporary_name(name), *leftovers):
            if path.is_dir():
                shutil.rmtree(path)
            elif path.exists():
                path.unlink()


def has_backup(run):
    """Whether the run in `run` has saved a training state (something to resume)."""
    return (Path(run) / BACKUP_DIR / BACKUP_STATE_FILE).exists()


def check_not_locked(run):
    """Raises `FolderError` while another process holds the lock of the folder `run` (a
    training, an import; see `lock_run_folder`)."""
    run = Path(run)
    if run.parent.is_dir() and run.resolve() not in _HELD:
        with folder_lock(run, "--output-dir"):
            pass


@contextlib.contextmanager
def lock_run_folder(run):
    """Holds the lock of the run folder `run` for the ``with`` block.

    It is `keras_nmt.workshop.owned_folder.folder_lock`: an OS file lock (`fcntl.flock`) on
    ``.NAME.lock`` beside the folder, holding the holder's PID, the same lock an import or an
    export of that folder takes, so neither can write into a folder being trained, nor a
    training start in one being imported. The kernel releases it when the process ends,
    however it ends (SIGKILL included), so a dead training never blocks the next one. A
    folder this call created and that holds nothing at the end is deleted again (a run that
    failed to start).

    Raises:
        FolderError: another process holds the lock (the message names the folder and the
            holder's PID).
    """
    run = Path(run)
    run.parent.mkdir(parents=True, exist_ok=True)
    with folder_lock(run, "--output-dir"):
        created = not run.exists()
        run.mkdir(exist_ok=True)
        _HELD.add(run.resolve())
        try:
            yield
        finally:
            _HELD.discard(run.resolve())
            if created and not any(run.iterdir()):
                run.rmdir()


@contextlib.contextmanager
def undone_on_failed_start(run):
    """Deletes what a new run wrote in `run` when the block fails before its first backup.

    A run that fails before any training state was saved (a full disk, a data error found
    after the tokenizers were built, every pair longer than ``--max-length``) would otherwise
    leave a `config.json` that refuses the corrected command. A folder holding a run already
    (a resumed one) is left as it is.
    """
    new = not (Path(run) / CONFIG_FILE).exists()
    try:
        yield
    except BaseException:
        if new and not has_backup(run):
            clear_run_folder(run)
        raise


def data_files(config):
    """``[(role, path)]`` of the files a run reads (`keras_nmt.workshop.run.task.load_pairs`)."""
    if config.valid:
        return ([("train", path) for path in corpus_paths(config.data)]
                + [("valid", path) for path in corpus_paths(config.valid)])
    if has_splits(config.data):
        return [(split, path) for split in ("train", "valid")
                for path in corpus_paths(config.data, split)]
    return [("train", path) for path in corpus_paths(config.data)]


def data_record(config, train_pairs):
    """What a run's data is (`DATA_FILE`): each file's fingerprint, the columns read and whether
    its first line was skipped as a header, and the training pairs' profile."""
    columns = [config.source_column,
               1 - config.source_column if config.target_column is None else config.target_column]
    files = [{"role": role, **file_fingerprint(path), "columns": columns,
              "header": not config.accept_data and first_line_is_header(path)}
             for role, path in data_files(config)]
    return {"files": files, "profile": profile_pairs(train_pairs)}


def check_data_unchanged(run):
    """Raises `RunFolderError` when a data file of the run in `run` changed since it started:
    its tokenizers and its place in the data belong to the old file."""
    path = Path(run) / DATA_FILE
    if not path.exists():
        return
    record = read_run_json(path) if path.is_file() else None
    files = record.get("files") if isinstance(record, dict) else None
    if not isinstance(files, list):
        raise RunFolderError(f"{path} is damaged (no list of files); add --fresh to delete "
                             f"what the run in {run} wrote and start again")
    for recorded in files:
        how = changed_file(recorded)
        if how is not None:
            raise RunFolderError(
                f"{recorded['path']} changed since the run in {run} started ({how}): its "
                "tokenizers and its place in the data belong to the old file. Put the old file "
                "back, train into another --output-dir, or add --fresh to start again")


def check_resumable(run, finished):
    """Raises `RunFolderError` when the run in `run` trained (a model or a history) but its
    backup is gone and training is asked for: it would start again from epoch 1 and replace
    the model."""
    run = Path(run)
    trained = [name for name in (MODEL_FILE, FINISHED_FILE, HISTORY_FILE) if (run / name).exists()]
    if trained and not has_backup(run) and not finished:
        raise RunFolderError(
            f"{run / BACKUP_DIR / BACKUP_STATE_FILE} is missing, but the run in {run} has trained "
            f"({', '.join(trained)} are there): training again would start from epoch 1 and "
            "replace its model. Put the backup back, or add --fresh to start again")


def prepare_run_folder(config, fresh=False):
    """Checks `config.output` before training; returns whether its run is already finished.

    Args:
        config: the `TrainConfig` about to be trained.
        fresh: delete what an earlier run wrote there first.

    Raises:
        RunFolderError: the folder holds a run made with other options or on data files that
            changed since, a trained run whose backup is gone, or one of its files is damaged.
        FolderError: another training or an import holds it.
    """
    run = Path(config.output)
    check_not_locked(run)
    check_holds_no_foreign_run_files(run)
    if fresh:
        clear_run_folder(run)
    check_run_folder(config, run / CONFIG_FILE)
    check_data_unchanged(run)
    finished = is_finished(config, finished_record(run)) and (run / MODEL_FILE).exists()
    check_resumable(run, finished)
    return finished


def run_precision(run, requested, shapes=None):
    """The `PrecisionChoice` of a run: the one recorded in `run`, else `resolve_precision`'s.

    `shapes`: the model's `step_matmul_shapes`, timed by `auto` on some CPUs (see `precision`).
    """
    path = Path(run) / PRECISION_FILE
    if path.exists():
        recorded = read_run_json(path)
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
        write_json(path, record)
