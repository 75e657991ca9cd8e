"""A stranger's `--sentencepiece-model`: not a model, a folder, a missing file. Each is refused
naming the file, before anything is written into the run folder."""

import pytest

from keras_nmt.workshop.run.train_config import TrainConfig
from keras_nmt.workshop.run.trainer import make_tokenizers


@pytest.mark.parametrize("kind, message", [
    ("a data file", "not a SentencePiece model"),
    ("a folder", "cannot read this SentencePiece model"),
    ("a missing file", "cannot read this SentencePiece model .No such file"),
])
def test_what_is_not_a_sentencepiece_model_is_refused_naming_it(tmp_path, kind, message):
    given = {"a data file": tmp_path / "pairs.tsv", "a folder": tmp_path,
             "a missing file": tmp_path / "nope.model"}[kind]
    (tmp_path / "pairs.tsv").write_text("hola\thello\n", encoding="utf-8")
    run = tmp_path / "run"
    config = TrainConfig(tokenizer="subword", sentencepiece_model=str(given), output=str(run))
    with pytest.raises(ValueError, match=f"^{given}: {message}"):
        make_tokenizers(config, [("hola", "hello")], run)
    assert not (run / "tokenizers").exists()
