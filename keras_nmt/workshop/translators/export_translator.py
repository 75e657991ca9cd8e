"""A run folder (or a `Translator`) exported as a SavedModel that carries its run's facts.

The SavedModel itself is `keras_nmt.export.saved_model.save_translator`'s; this adds what a
run folder knows: its data columns, its data record, provenance and tokenizers' files."""

import shutil
from pathlib import Path

from keras_nmt.atomic_file import write_json
from keras_nmt.decoding.decoding_options import DEFAULT_MAX_BEAM_SIZE
from keras_nmt.export.formats import check_model_name
from keras_nmt.export.saved_model import check_version, save_translator
from keras_nmt.inference.translator import Translator
from keras_nmt.workshop.owned_folder import partial_name, remove_dead_partials
from keras_nmt.workshop.run.provenance import PROVENANCE_FILE, run_provenance
from keras_nmt.workshop.run.run_folder import DATA_FILE, TOKENIZERS_DIR, RunFolder, run_columns


def _as_translator(run_dir_or_translator, max_beam_size):
    """A `Translator`, a default export name and what the export carries of its run
    (`run_data`; nothing for a bare `Translator`) from a run folder or a `Translator`."""
    if isinstance(run_dir_or_translator, Translator):
        return run_dir_or_translator, "translator", ({}, None, None)
    path = Path(run_dir_or_translator)
    run = RunFolder.load(path)
    return run.translator(max_beam_size=max_beam_size), path.resolve().name, run_data(run)


def run_data(run):
    """``(facts, data_file, run)`` an export carries of its run: the columns and the direction
    it read its data in (``source_column``, ``target_column``, ``data``), the path of its
    `DATA_FILE` (fingerprints and profile; None for a run older than it) and the run."""
    source, target = run_columns(run.config)
    facts = {"source_column": source, "target_column": target, "data": run.config.get("data")}
    data_file = run.path / DATA_FILE
    return facts, (data_file if data_file.is_file() else None), run


def export_translator(run_dir_or_translator, base_dir="saved_models", name=None, version=None,
                      max_beam_size=DEFAULT_MAX_BEAM_SIZE):
    """Exports a run folder's translator (or a `Translator`) to `base_dir/name/version/`.

    Written atomically in TensorFlow Serving's layout by `save_translator`; a run folder's export
    also carries the run's data columns, its data record, provenance and tokenizers' files.

    Args:
        run_dir_or_translator: a run folder (written by `keras-nmt train`) or a `Translator`.
        base_dir: the directory of all exported models.
        name: the model's name (default: the run folder's name, or "translator").
        version: a positive int (default: one more than the largest existing version).
        max_beam_size: for a run folder, the largest beam size the export serves (each size
            is a function of its own in the SavedModel); a `Translator` brings its own.

    Returns:
        The `Path` of the version directory.
    """
    if name is not None:
        check_model_name(name)
    check_version(version)  # before the run loads
    translator, default_name, (facts, data_file, run) = _as_translator(run_dir_or_translator,
                                                                       max_beam_size)

    def write_run_facts(extra):
        if data_file is not None:
            shutil.copyfile(data_file, extra / DATA_FILE)
        if run is not None:
            # Its languages, tokenizers' fingerprints and attribution travel with it, and its
            # tokenizers' files, by which a data file's columns are checked against it.
            write_json(extra / PROVENANCE_FILE, run_provenance(run.path, run.config), indent=2)
            shutil.copytree(run.path / TOKENIZERS_DIR, extra / TOKENIZERS_DIR)

    # A killed export's partial is removed only when its owner is provably dead; this one's
    # carries its owner (`keras_nmt.workshop.owned_folder`).
    remove_dead_partials(Path(base_dir) / (name or default_name))
    return save_translator(translator, base_dir, name or default_name, version, metadata=facts,
                           write_extra=write_run_facts, partial_name=partial_name)
