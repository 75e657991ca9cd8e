"""Checks on corpus files that turn low-level failures into one clear `CorpusError`.

* `compressed_file_errors`: a truncated or corrupt ``.gz``/``.xz``/``.zip`` names the file
  (instead of a bare ``EOFError``, ``LZMAError`` or ``BadGzipFile``), and a line error found in
  decompressed garbage is reported as the corruption it is.
* `check_bad_lines`: fail when too many lines were skipped as malformed.
* `visible`: the text without invisible characters (an all-U+200D side counts as empty).

Example:
    >>> visible("\\u200d\\u200b"), visible("a\\u00adb")
    ('', 'ab')
"""

from __future__ import annotations

import contextlib
import lzma
import unicodedata
import zipfile
import zlib
from pathlib import Path

from keras_nmt.plural import plural
from keras_nmt.workshop.corpora.errors import CorpusError

COMPRESSED_SUFFIXES = (".gz", ".xz", ".zip")
DECOMPRESSION_ERRORS = (EOFError, lzma.LZMAError, zlib.error, zipfile.BadZipFile, OSError)
# Shown as FILE:LINE when lines are skipped.
MAX_REPORTED_LINES = 5


def visible(text: str) -> str:
    """``text`` without format characters (Unicode category Cf: zero-width joiners, BOMs, soft
    hyphens...), stripped of surrounding whitespace."""
    return "".join(ch for ch in text if unicodedata.category(ch) != "Cf").strip()


def _corruption(path, error) -> CorpusError:
    kind = Path(path).suffix.lower().lstrip(".")
    detail = str(error) or type(error).__name__
    return CorpusError(
        path, None, "compressed", f"corrupt or truncated .{kind} file ({detail})"
    )


@contextlib.contextmanager
def compressed_file_errors(path, stream):
    """Reports decompression failures while reading ``stream`` (opened from ``path``).

    A `CorpusError` raised inside (a malformed line) is re-checked first: the rest of a
    compressed stream is read, and if that fails the corruption is reported instead, since the
    "malformed line" was decompressed garbage.
    """
    compressed = Path(str(path)).suffix.lower() in COMPRESSED_SUFFIXES
    try:
        yield
    except CorpusError:
        if compressed:
            try:
                for _ in stream:
                    pass
            except DECOMPRESSION_ERRORS as error:
                raise _corruption(path, error) from None
        raise
    except DECOMPRESSION_ERRORS as error:
        if not compressed or isinstance(error, FileNotFoundError | IsADirectoryError):
            raise
        raise _corruption(path, error) from None


def check_bad_lines(stats, max_fraction: float) -> None:
    """Raises `CorpusError` when more than ``max_fraction`` of the lines read were skipped.

    Args:
        stats: the `CorpusStats` of a corpus read with ``on_error="skip"``.
        max_fraction: in ``[0, 1]``.
    """
    if stats.read and stats.num_skipped / stats.read > max_fraction:
        raise CorpusError(
            stats.source, None, "too_many_bad_lines",
            f"{stats.num_skipped:,} of {plural(stats.read, 'line')} malformed, more than "
            f"{max_fraction:.1%} (first: {', '.join(stats.first_skipped)})",
        )
