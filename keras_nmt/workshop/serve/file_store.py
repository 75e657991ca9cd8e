"""The translated files of `POST /translate_file`, kept in memory for `GET
/download_file/<name>`.

In memory, not on disk: a name is looked up in a dictionary and never becomes a path, so no
name a client sends can reach a file of the machine; and a restart leaves nothing behind. The
store holds the latest `max_files` files (each at most the server's file limit), the oldest
forgotten first.

Example:
    >>> store = FileStore(max_files=2)
    >>> name = store.add("notes.txt", b"Hello", "text/plain")
    >>> store.get(name).body, store.get(name).filename
    (b'Hello', 'notes.txt')
"""

import collections
import dataclasses
import re
import uuid


@dataclasses.dataclass(frozen=True)
class StoredFile:
    body: bytes
    content_type: str
    filename: str  # the name a download is saved under: the uploaded file's


class FileStore:
    """The latest `max_files` translated files, by a name no one can guess."""

    def __init__(self, max_files=64):
        self.max_files = max_files
        self.files = collections.OrderedDict()

    def add(self, filename, body, content_type):
        """Keeps a file; returns its name: a random hex, a dot, and `filename` made safe."""
        safe = re.sub(r"[^A-Za-z0-9._-]+", "_", filename).strip("._") or "file"
        name = f"{uuid.uuid4().hex}.{safe}"
        self.files[name] = StoredFile(body, content_type, safe)
        while len(self.files) > self.max_files:
            self.files.popitem(last=False)
        return name

    def get(self, name):
        """The `StoredFile` of `name`, or `None` (never made, or forgotten)."""
        return self.files.get(name)
