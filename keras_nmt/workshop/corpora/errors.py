"""The errors raised for corpus files that cannot be read or downloaded."""

from __future__ import annotations


class CorpusError(ValueError):
    """A corpus file could not be read: names the file and, when known, the 1-based line.

    Attributes:
        path: the file (for line-aligned corpora, the file the bad line is in).
        line: 1-based line number of the bad line, or ``None`` for whole-file problems
            (empty corpus, files of different lengths, ambiguous zip members).
        reason: a short machine-readable reason (``"columns"``, ``"empty_side"``, ``"utf8"``,
            ``"empty_corpus"``, ``"length_mismatch"``, ``"zip_member"``).

    Example:
        >>> str(CorpusError("bad.tsv", 3, "columns", "expected 2 or 3 columns, found 1"))
        'bad.tsv, line 3: expected 2 or 3 columns, found 1'
    """

    def __init__(self, path, line: int | None, reason: str, message: str):
        self.path = str(path)
        self.line = line
        self.reason = reason
        where = self.path if line is None else f"{self.path}, line {line}"
        super().__init__(f"{where}: {message}")


class DownloadError(OSError):
    """A corpus could not be downloaded (no network, blocked, or not found).

    The message names the URL and tells the user to download the file by hand and pass the
    local file with ``--data PATH``.

    Attributes:
        url: the URL that failed.
    """

    def __init__(self, url: str, message: str):
        self.url = url
        super().__init__(message)
