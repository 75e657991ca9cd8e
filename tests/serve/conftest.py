import pytest

from keras_nmt.workshop.translators.open_translator import open_translator
from tests.built_once import built_once
from tests.serve.server import make_runs


@pytest.fixture(scope="session")
def runs(tmp_path_factory):
    """`(transformer, luong)`: `make_runs`' two tiny run folders, made once for all workers
    (`built_once`) and shared by the server modules, which only read them."""
    folder = built_once(tmp_path_factory, "serve_runs", make_runs)
    return folder / "transformer", folder / "luong"


@pytest.fixture(scope="session")
def opened(runs):
    """`runs` opened in this process, once per worker: each opening traces its decoders again."""
    return [open_translator(run) for run in runs]
