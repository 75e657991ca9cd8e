"""The error raised when a corpus cannot be downloaded."""

from __future__ import annotations


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
