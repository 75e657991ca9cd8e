"""Downloads Tatoeba/Anki sentence-pair files from manythings.org.

Each ``xxx-eng.zip`` holds ``xxx.txt`` (``English<TAB>Other[<TAB>attribution]`` per line) and
``_about.txt``. Read it with ``read_tsv(download("spa-eng"))`` or
``load_corpus("spa-eng")``.
"""

from __future__ import annotations

import re
from pathlib import Path

from keras_nmt.workshop.corpora.errors import DownloadError

ANKI_URL = "https://www.manythings.org/anki/{name}.zip"
_NAME = re.compile(r"^[a-z]{3}-eng$")


def anki_url(name: str) -> str:
    """The URL of an Anki file, e.g. ``anki_url("spa-eng")`` ->
    ``"https://www.manythings.org/anki/spa-eng.zip"``.

    Raises:
        ValueError: ``name`` is not ``xxx-eng`` (three lower-case letters).
    """
    if not _NAME.match(name):
        raise ValueError(f"Anki names look like 'spa-eng' or 'fra-eng', got {name!r}")
    return ANKI_URL.format(name=name)


def download(name: str, cache_dir: str | None = None) -> Path:
    """Downloads the Anki zip ``name`` with ``keras.utils.get_file`` (once; then from the cache).

    Args:
        name: e.g. ``"spa-eng"`` or ``"fra-eng"``.
        cache_dir: passed to ``get_file`` (default ``~/.keras``); the file lands in
            ``<cache_dir>/datasets/<name>.zip``.

    Returns:
        The path of the local zip file.

    Raises:
        DownloadError: the download failed (e.g. no network). The message names the URL and
            says how to fetch it by hand and pass ``--data PATH``.
    """
    import keras  # here, not above: heavy, and the corpus readers need no Keras/TensorFlow

    url = anki_url(name)
    try:
        path = keras.utils.get_file(
            fname=f"{name}.zip", origin=url, cache_dir=cache_dir, cache_subdir="datasets"
        )
    except Exception as error:  # get_file raises plain Exception subclasses for HTTP/URL errors
        raise DownloadError(
            url,
            f"could not download {url} ({type(error).__name__}: {error}). Without network "
            f"access, download it by hand (e.g. in a browser), then pass the local file with "
            f"--data PATH, e.g. --data ~/Downloads/{name}.zip (a .zip, or its .txt member).",
        ) from error
    return Path(path)
