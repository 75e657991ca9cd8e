"""A run folder (or a `Translator`) exported as a SavedModel that carries its run's facts.

The SavedModel itself is `keras_nmt.export.saved_model.write_saved_model`'s; this adds what a
reloaded one needs (`translator_facts`), what a run folder knows (its data columns, its data
record, provenance and tokenizers' files) and writes the version folder as every folder of ours
is written (`keras_nmt.workshop.owned_folder.FolderWriter`): under a lock (a second export of
the same version is refused at once; one without `--version` takes the next free number), under
a hidden name carrying its owner, moved in whole, and with `force` replacing only what an
export wrote."""

import contextlib
import os
import shutil
from numbers import Integral
from pathlib import Path

from keras_nmt.decoding.decoding_options import DEFAULT_MAX_BEAM_SIZE
from keras_nmt.export.saved_model import write_saved_model
from keras_nmt.inference.translator import Translator
from keras_nmt.workshop.atomic_file import write_json
from keras_nmt.workshop.owned_folder import FolderError, FolderWriter
from keras_nmt.workshop.run.provenance import PROVENANCE_FILE, run_provenance
from keras_nmt.workshop.run.run_folder import DATA_FILE, TOKENIZERS_DIR, RunFolder, run_columns
from keras_nmt.workshop.translators.formats import check_model_name

# Where an export keeps the facts a reloaded SavedModel needs (`translator_facts`, a run's data
# columns): its assets.extra/, which TF Serving ignores.
METADATA_FILE = "keras_nmt.json"
# What a SavedModel version folder holds (a folder with the first, written before manifests,
# is an export's).
SAVED_MODEL_NAMES = ("saved_model.pb", "variables", "assets", "assets.extra", "fingerprint.pb")


def translator_facts(translator):
    """What `SavedTranslator` reads of a `Translator`'s export, JSON-ready."""
    return {
        "max_source_length": translator.max_source_length,
        "max_target_length": translator.max_target_length,
        "max_beam_size": translator.max_beam_size,
        "has_attention": bool(getattr(translator.model, "has_attention", False)),
        "model_class": type(translator.model).__name__,
    }


def _as_translator(run_dir_or_translator, max_beam_size):
    """A `Translator`, a default export name and what the export carries of its run
    (`run_data`; nothing for a bare `Translator`) from a run folder or a `Translator`."""
    if isinstance(run_dir_or_translator, Translator):
        return run_dir_or_translator, "translator", ({}, None, None)
    path = Path(run_dir_or_translator)
    run = RunFolder.load(path)
    return run.translator(max_beam_size=max_beam_size), path.resolve().name, run_data(run)


def next_version(model_dir):
    """1 + the largest integer version directory under `model_dir` (1 when there is none)."""
    model_dir = Path(model_dir)
    versions = [int(p.name) for p in model_dir.glob("*") if p.is_dir() and p.name.isdigit()]
    return max(versions, default=0) + 1


def check_version(version):
    """Refuses a version that is not a positive integer (`int(1.5)` exported version 1)."""
    if version is not None and (isinstance(version, bool) or not isinstance(version, Integral)
                                or version < 1):
        raise ValueError(f"version must be a positive integer, got {version!r}")


@contextlib.contextmanager
def version_folder(model_dir, version=None, force=False):
    """The `FolderWriter` of the version folder `model_dir/version` for the block.

    A chosen `version` that exists needs `force` (only an export's names are replaced); one
    another export is writing is refused at once. Without a `version`, the next free number is
    taken, passing over the numbers other exports hold."""
    number = next_version(model_dir) if version is None else version
    with contextlib.ExitStack() as stack:
        while True:
            writer = FolderWriter(Path(model_dir) / str(number), force=force, flag="--version",
                                  known=SAVED_MODEL_NAMES)
            try:
                stack.enter_context(writer)
                break
            except (FolderError, FileExistsError):
                if version is not None:
                    raise
                number += 1  # held by another export (or a file of that name): the next one
        yield writer


def run_data(run):
    """``(facts, data_file, run)`` an export carries of its run: the columns and the direction
    it read its data in (``source_column``, ``target_column``, ``data``), the path of its
    `DATA_FILE` (fingerprints and profile; None for a run older than it) and the run."""
    source, target = run_columns(run.config)
    facts = {"source_column": source, "target_column": target, "data": run.config.get("data")}
    data_file = run.path / DATA_FILE
    return facts, (data_file if data_file.is_file() else None), run


def export_translator(run_dir_or_translator, base_dir="saved_models", name=None, version=None,
                      max_beam_size=DEFAULT_MAX_BEAM_SIZE, force=False):
    """Exports a run folder's translator (or a `Translator`) to `base_dir/name/version/`.

    Written whole in TensorFlow Serving's layout (see the module); a run folder's export also
    carries the run's data columns, its data record, provenance and tokenizers' files.

    Args:
        run_dir_or_translator: a run folder (written by `keras-nmt train`) or a `Translator`.
        base_dir: the directory of all exported models.
        name: the model's name (default: the run folder's name, or "translator").
        version: a positive int (default: one more than the largest existing version).
        max_beam_size: for a run folder, the largest beam size the export serves (each size
            is a function of its own in the SavedModel); a `Translator` brings its own.
        force: replace the existing `version` (only the names an export wrote; a user's
            other files in it are kept).

    Returns:
        The `Path` of the version directory.

    Raises:
        FileExistsError: `version` exists and `force` is False.
        FolderError: another export is writing `version`, or it holds files no export wrote.
    """
    if name is not None:
        check_model_name(name)
    check_version(version)  # before the run loads
    translator, default_name, (facts, data_file, run) = _as_translator(run_dir_or_translator,
                                                                       max_beam_size)
    name = name or default_name
    check_model_name(name)

    def write_run_facts(extra):
        if data_file is not None:
            shutil.copyfile(data_file, extra / DATA_FILE)
        if run is not None:
            # Its languages, tokenizers' fingerprints and attribution travel with it, and its
            # tokenizers' files, by which a data file's columns are checked against it.
            write_json(extra / PROVENANCE_FILE, run_provenance(run.path, run.config), indent=2)
            shutil.copytree(run.path / TOKENIZERS_DIR, extra / TOKENIZERS_DIR)

    with version_folder(Path(base_dir) / name, version, force) as writer:
        write_saved_model(translator, writer.partial)
        extra = writer.partial / "assets.extra"
        extra.mkdir(exist_ok=True)
        write_json(extra / METADATA_FILE, {**translator_facts(translator), **facts}, indent=2)
        write_run_facts(extra)
        _make_readable(writer.partial)
    return writer.final


def _make_readable(directory):
    """The usual 0755 folders and 0644 files (mkdtemp makes 0700, unreadable to a server)."""
    for root, _, files in os.walk(directory):
        os.chmod(root, 0o755)
        for name in files:
            os.chmod(os.path.join(root, name), 0o644)
