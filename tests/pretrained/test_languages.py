"""An imported model records the language pair it states, which `keras-nmt serve` offers."""

import json

import pytest

from keras_nmt.workshop.cli import main
from keras_nmt.workshop.pretrained.marian_checkpoint import read_marian
from keras_nmt.workshop.serve.served_model import recorded_pair
from keras_nmt.workshop.translators.open_translator import model_data
from tests.pretrained.conftest import HF_DIR
from tests.pretrained.opus_layout import write_opus_folder


def test_the_pair_of_tokenizer_config_is_recorded_for_serve(imported):
    result = imported()
    assert result.languages == "spa,eng"  # the fixture's tokenizer_config.json
    assert recorded_pair(model_data(result.run_dir)) == ("spa", "eng")


@pytest.fixture(scope="module")
def opus_folder(tmp_path_factory):
    return write_opus_folder(HF_DIR, tmp_path_factory.mktemp("opus") / "opus-mt")


@pytest.mark.parametrize(("readme", "pair"), [
    (None, None),
    ("# opus-2020-01-08.zip\n\n* dataset: opus\n* source language(s): es\n"
     "* target language(s): en\n* model: transformer-align\n", "es,en"),
    # A multilingual release (e.g. en-ROMANCE) lists several targets: no one pair.
    ("* source language(s): en\n* target language(s): es fr it pt ro\n", None),
    ("* source language(s): en\n* target language(s): ROMANCE\n", None),
])
def test_an_opus_release_states_its_pair_in_its_readme(opus_folder, readme, pair):
    (opus_folder / "README.md").unlink(missing_ok=True)
    if readme is not None:
        (opus_folder / "README.md").write_text(readme, encoding="utf-8")
    assert read_marian(opus_folder).languages == pair


def test_languages_given_at_import_replace_the_models_own(tmp_path, capsys):
    run = tmp_path / "run"
    assert main(["import", str(HF_DIR), "--output-dir", str(run), "--languages", "es,en"]) == 0
    assert "languages es,en (what `keras-nmt serve` offers)" in capsys.readouterr().out
    assert json.loads((run / "config.json").read_text())["languages"] == "es,en"
    with pytest.raises(SystemExit) as refused:
        main(["import", str(HF_DIR), "--output-dir", str(tmp_path / "bad"),
              "--languages", "spanish"])
    assert refused.value.code == 2
    assert "error: --languages spanish: must be two language codes" in capsys.readouterr().err
    assert not (tmp_path / "bad").exists()
