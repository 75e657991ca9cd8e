"""The tiny Marian model of `make_fixtures.py`, imported once per twin and layout."""

import json
from pathlib import Path

import numpy as np
import pytest

from keras_nmt.workshop.pretrained.marian_import import import_marian
from keras_nmt.workshop.run.run_folder import RunFolder
from keras_nmt.workshop.translators.open_translator import open_translator
from tests.pretrained.opus_layout import write_opus_folder

FIXTURES = Path(__file__).parent / "fixtures"
HF_DIR = FIXTURES / "hf"
MAX_NEW_TOKENS = 24  # the reference outputs' length limit


class Reference:
    """transformers' outputs (`fixtures/reference.npz`) and the Marian vocabulary."""

    def __init__(self):
        self.arrays = np.load(FIXTURES / "reference.npz")
        self.sentences = (FIXTURES / "sentences.txt").read_text(encoding="utf-8").split("\n")[:-1]
        self.vocab = json.loads((HF_DIR / "vocab.json").read_text(encoding="utf-8"))
        self.pad = self.vocab["<pad>"]

    def rows(self, name, lengths="{}_lengths"):
        """A ragged reference (`name`, its row lengths) as a list of lists of Marian ids."""
        values, lengths = self.arrays[name], self.arrays[lengths.format(name)]
        return [row.tolist() for row in np.split(values, np.cumsum(lengths)[:-1])]


@pytest.fixture(scope="session")
def reference():
    return Reference()


@pytest.fixture(scope="session")
def imported(tmp_path_factory):
    """`imported(api, layout)`: the fixture model imported into a run folder (cached)."""
    runs = {}
    base = tmp_path_factory.mktemp("imported")

    def get(api="functional", layout="huggingface"):
        if (api, layout) not in runs:
            source = HF_DIR
            if layout == "opus-mt":
                source = write_opus_folder(HF_DIR, base / "opus-mt")
            runs[api, layout] = import_marian(source, base / f"{api}-{layout}", api=api,
                                              force=True)
        return runs[api, layout]

    return get


@pytest.fixture(scope="session")
def loaded(imported):
    """`loaded(api, layout)`: `imported(api, layout)`'s run folder loaded (its model and
    tokenizers), once per worker, for the tests that only read and run it."""
    runs = {}

    def get(api="functional", layout="huggingface"):
        if (api, layout) not in runs:
            runs[api, layout] = RunFolder.load(imported(api, layout).run_dir)
        return runs[api, layout]

    return get


@pytest.fixture(scope="session")
def opened(imported):
    """`imported()`'s run (the functional twin) opened as a translator once per worker, for the
    tests that only translate with it: each opening traces its decoders again."""
    return open_translator(imported().run_dir)
