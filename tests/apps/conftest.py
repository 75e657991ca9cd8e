import pytest

from keras_nmt.workshop.cli import export as export_app
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
