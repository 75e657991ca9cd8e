import contextlib
from pathlib import Path

import pytest

from keras_nmt.workshop.cli import export as export_app
from keras_nmt.workshop.translators import open_translator as opening
from tests.built_once import built_once
from tests.export.helpers import make_run_folder


def _untrained(base):
    run = make_run_folder(base / "run")
    assert export_app.main([str(run), "--output-dir", str(base / "saved"), "--name", "m",
                            "--max-beam-size", "2"]) == 0


@pytest.fixture(scope="session")
def untrained_models(tmp_path_factory):
    """`{"run": run folder, "version": saved/m/1, "model": saved/m}` of one untrained lstm.

    Shared by the app modules (read only: a test that damages a file copies the folder first),
    built and exported once for all workers (`built_once`), not once per module or worker.
    """
    base = built_once(tmp_path_factory, "untrained_models", _untrained)
    return {"run": base / "run", "version": base / "saved" / "m" / "1",
            "model": base / "saved" / "m"}


@contextlib.contextmanager
def _opening_once():
    """`open_translator` (which every command calls) opening each model once while in the
    block: a later command on the same path, weights and threads gets the translator already
    opened, with the decoding functions it has traced (1.5-2 CPU seconds a command on these
    tiny models, nearly all tracing). A failed opening is not kept (the next call tries again).
    """
    opened, real = {}, opening.open_translator

    def once(path, weights=None, parallel=None):
        key = (Path(path).resolve(), weights and Path(weights).resolve(), parallel)
        if key not in opened:
            opened[key] = real(path, weights=weights, parallel=parallel)
        return opened[key]

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(opening, "open_translator", once)
        yield opened


@pytest.fixture(scope="module")
def each_model_opened_once():
    """Each model opened once for the module (`_opening_once`), for modules whose tests check
    what the commands do with their lines, files and flags, not the opening:
    `test_saved_model_apps` and `test_damaged_files` open every kind of folder afresh."""
    with _opening_once() as opened:
        yield opened


@pytest.fixture
def each_model_opened_once_in_the_test():
    """Each model opened once for the test (`_opening_once`): its first command opens it."""
    with _opening_once() as opened:
        yield opened
