"""Anki downloads, without network: get_file is monkeypatched."""

import zipfile

import keras
import pytest

from keras_nmt.workshop.corpora.corpus import load_corpus
from keras_nmt.workshop.corpora.download import anki_url, download
from keras_nmt.workshop.corpora.errors import DownloadError


def test_anki_url():
    assert anki_url("spa-eng") == "https://www.manythings.org/anki/spa-eng.zip"
    with pytest.raises(ValueError, match="spa-eng"):
        anki_url("spanish")


def test_download_without_network_gives_clear_error(monkeypatch):
    def offline(*args, **kwargs):
        raise Exception("URL fetch failure on https://www.manythings.org/anki/fra-eng.zip: None")

    monkeypatch.setattr(keras.utils, "get_file", offline)
    with pytest.raises(DownloadError) as error:
        download("fra-eng")
    message = str(error.value)
    assert isinstance(error.value, OSError)
    assert error.value.url == "https://www.manythings.org/anki/fra-eng.zip"
    assert "could not download https://www.manythings.org/anki/fra-eng.zip" in message
    assert "download it by hand" in message and "--data PATH" in message
    with pytest.raises(DownloadError):
        load_corpus("fra-eng", source_column=1)


def test_load_corpus_reads_the_downloaded_zip(monkeypatch, tmp_path):
    path = tmp_path / "spa-eng.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("_about.txt", "about\n")
        archive.writestr("spa.txt", "Go.\tVe.\tCC-BY 2.0 (France) Attribution\n")
    calls = []

    def fake_get_file(fname, origin, **kwargs):
        calls.append((fname, origin))
        return str(path)

    monkeypatch.setattr(keras.utils, "get_file", fake_get_file)
    assert load_corpus("spa-eng", source_column=1).pairs == [("Ve.", "Go.")]
    assert calls == [("spa-eng.zip", "https://www.manythings.org/anki/spa-eng.zip")]
