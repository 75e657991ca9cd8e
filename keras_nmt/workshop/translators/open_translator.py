"""`open_translator`: one call opens any translator the project writes; `model_data`: what
any of them records of the data it was trained on."""

import dataclasses
import warnings
import zipfile
from pathlib import Path

from keras_nmt.saved_files import read_json
from keras_nmt.workshop.run.provenance import (
    PROVENANCE_FILE,
    check_engine_files,
    check_tokenizers,
    read_provenance,
    run_provenance,
    warn_unrecorded,
)
from keras_nmt.workshop.run.run_folder import (
    CONFIG_FILE,
    DATA_FILE,
    MODEL_FILE,
    TOKENIZERS_DIR,
    RunFolder,
    check_finite_weights,
    read_run_config,
    run_columns,
)
from keras_nmt.workshop.translators.ctranslate2_translator import (
    METADATA_FILE as CTRANSLATE2_METADATA,
)
from keras_nmt.workshop.translators.ctranslate2_translator import (
    CTranslate2Translator,
    ctranslate2_threads,
    is_ctranslate2_export,
)
from keras_nmt.workshop.translators.export_translator import METADATA_FILE as SAVED_METADATA
from keras_nmt.workshop.translators.saved_translator import SavedTranslator, find_saved_model


@dataclasses.dataclass
class ModelData:
    """What a model records of its training data, whatever its format.

    Attributes:
        kind: ``"run"`` (a run folder), ``"saved_model"``, ``"ctranslate2"`` or ``None``
            (nothing the project wrote).
        folder: the folder holding the record (a SavedModel's version folder).
        columns: the ``(source, target)`` TSV columns it was trained on, or ``None`` (an export
            older than this record).
        profile: its training data's profile
            (`keras_nmt.workshop.corpora.data_profile.profile_pairs`), or ``None``.
        provenance: ``{"languages", "tokenizers", "attribution"}``
            (`keras_nmt.workshop.run.provenance`); empty for an export older than it.
        tokenizers: the folder holding its tokenizers (``source/``, ``target/``), or ``None``
            (a SavedModel older than the copy it carries).
        data: the data it was trained on (``config.json``'s ``data``: ``"dates"`` for the
            built-in dates, ``""`` for an imported model), or ``None`` when not recorded.
    """

    kind: str | None
    folder: Path
    columns: tuple[int, int] | None = None
    profile: dict | None = None
    provenance: dict = dataclasses.field(default_factory=dict)
    tokenizers: Path | None = None
    data: str | None = None

    @property
    def languages(self):
        """Each side's language (`keras_nmt.workshop.run.provenance.run_languages`), or None."""
        return self.provenance.get("languages")


def _read(path):
    return read_json(path, "export it again, or train again", expect=dict)


def model_data(path):
    """The `ModelData` of a run folder, a SavedModel (or its model folder) or a CTranslate2
    export: every command that reads data with a model feeds it the columns it was trained on
    and measures the data against its profile, whatever the format."""
    path = Path(path)
    if is_ctranslate2_export(path):
        kind, folder, facts = "ctranslate2", path, _read(path / CTRANSLATE2_METADATA)
        extra = path
    elif (saved := find_saved_model(path)) is not None:
        metadata = saved / "assets.extra" / SAVED_METADATA
        kind, folder, facts = "saved_model", saved, _read(metadata) if metadata.is_file() else {}
        extra = saved / "assets.extra"
    elif (path / CONFIG_FILE).is_file():
        kind, folder, facts = "run", path, read_run_config(path / CONFIG_FILE)
        extra = path
    else:
        return ModelData(None, path)
    # An imported model read no data file: it has no columns of its own.
    columns = run_columns(facts) if "source_column" in facts and facts.get("data") else None
    data = extra / DATA_FILE
    profile = _read(data).get("profile") if data.is_file() else None
    provenance = (run_provenance(path, facts) if kind == "run"
                  else read_provenance(extra / PROVENANCE_FILE))
    tokenizers = extra / TOKENIZERS_DIR
    return ModelData(kind, folder, columns, profile, provenance,
                     tokenizers if tokenizers.is_dir() else None, facts.get("data"))


def open_translator(path, weights=None, parallel=None):
    """A translator from a run folder, a SavedModel directory or a CTranslate2 export.

    Args:
        path: a run folder (`config.json`, `model.keras`, tokenizers), a SavedModel version
            directory (`saved_model.pb`), a model directory holding versions (the highest is
            used), or a CTranslate2 export
            (`keras_nmt.workshop.translators.ctranslate2_export.export_ctranslate2`).
        weights: optional `.weights.h5` file loaded into a run folder's model in place of
            its trained weights (e.g. ``budget.weights.h5``: where a time budget ran out).
        parallel: batches a CTranslate2 export decodes at once (`--parallel-batches`, the
            server's `--workers`): N > 1, N batches on a thread each; 1, one batch on every
            core (default: one batch per core). TensorFlow's translators take theirs from
            `configure_decoding_threads`.

    Returns:
        A `Translator` (run folder), a `SavedTranslator` or a `CTranslate2Translator`; all
        offer `translate_batch`, `translate_texts` and calls on a list of strings
        (`BatchTranslator`).

    Raises:
        ValueError: ``weights`` for a SavedModel, or weights of another model; a damaged
            `model.keras` or SavedModel, named with the way out.
    """
    path = Path(path)
    if is_ctranslate2_export(path):
        if weights is not None:
            raise ValueError(f"{path} is a CTranslate2 export: its weights are fixed")
        warn_unrecorded(path, "model.bin", "export it again from its run to record them")
        _check_export_tokenizers(path)
        record = path / PROVENANCE_FILE
        check_engine_files(path, read_provenance(record), record)  # model.bin is theirs
        return CTranslate2Translator(path, **ctranslate2_threads(parallel))
    saved = find_saved_model(path)
    if saved is not None:
        if weights is not None:
            raise ValueError(f"{path} is a SavedModel: its weights are fixed (weights are for "
                             "run folders)")
        _check_export_tokenizers(saved / "assets.extra")
        return _load_saved_model(saved)
    if not path.exists():
        raise FileNotFoundError(f"{path} does not exist")
    _check_model_file(path / MODEL_FILE)
    run = RunFolder.load(path)
    if weights is not None:
        if not Path(weights).is_file():
            raise FileNotFoundError(f"{weights} does not exist")
        _load_weights(run.model, weights, path)
    return run.translator()


def _check_export_tokenizers(folder):
    """An export's tokenizer files (`folder`/tokenizers) are the ones its record names."""
    record = Path(folder) / PROVENANCE_FILE
    check_tokenizers(Path(folder) / TOKENIZERS_DIR, read_provenance(record), record)


def _load_weights(model, weights, run):
    """Loads the `.weights.h5` file `weights` into `run`'s model; weights of another model
    (Keras' error lists every tensor) or non-finite ones are refused in one line."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # Keras warns of each layer it skips, then raises
        try:
            model.load_weights(weights)
        except OSError as error:  # h5py: "Unable to open file (file signature not found)"
            first = (str(error).strip().splitlines() or [type(error).__name__])[0]
            raise ValueError(f"--weights {weights} is not a Keras weights file (.weights.h5: "
                             f"{first}); pass the weights of this run, e.g. its "
                             "budget.weights.h5") from None
        except ValueError as error:
            raise ValueError(f"{weights} does not fit the model of {run} (other layers or "
                             "sizes: it was saved by another model); pass the weights of this "
                             "run, e.g. its budget.weights.h5") from error
    check_finite_weights(model, weights)


def _check_model_file(path):
    """A `model.keras` that is there but cut short (a copy or a disk that failed) is named as
    damaged; Keras itself reports such a file as not found."""
    if path.is_file() and not zipfile.is_zipfile(path):
        raise ValueError(f"{path} is damaged (not a complete .keras archive); copy it again, or "
                         "train again (the same train command resumes from backup/ if it is "
                         "still there)")


def _load_saved_model(path):
    """`SavedTranslator(path)`; TensorFlow's many-line errors about a damaged SavedModel (a
    missing variables file, a cut `saved_model.pb`) become one `ValueError` naming the folder."""
    try:
        return SavedTranslator(path)
    except Exception as error:
        first = (str(error).strip().splitlines() or [type(error).__name__])[0]
        raise ValueError(f"{path} is not a loadable SavedModel (a file is missing or damaged: "
                         f"{first}); export it again with keras-nmt export") from error
