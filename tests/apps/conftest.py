import pytest

from keras_nmt.cli import export as export_app
from tests.export.helpers import make_run_directory


@pytest.fixture(scope="session")
def untrained_models(tmp_path_factory):
    """`{"run": run folder, "version": saved/m/1, "model": saved/m}` of one untrained lstm.

    Shared by the app modules (read only: a test that damages a file copies the folder first),
    so each worker builds and exports it once instead of once per module.
    """
    base = tmp_path_factory.mktemp("untrained")
    run = make_run_directory(base / "run")
    assert export_app.main([str(run), "--output-dir", str(base / "saved"), "--name", "m",
                            "--max-beam-size", "2"]) == 0
    return {"run": run, "version": base / "saved" / "m" / "1", "model": base / "saved" / "m"}
