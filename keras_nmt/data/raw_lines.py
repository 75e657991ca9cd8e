"""Lines of a stream read in bounded memory: every input (corpus files, files of sentences,
stdin) is read through `raw_lines`, a block at a time, so that no line longer than
`MAX_LINE_CHARS` is ever held (`translate --input /dev/zero` grew until the kernel killed it;
a 2 GB file with no line break would too).

A line ends at ``\\n`` (its ``\\r`` of ``\\r\\n`` dropped), or at ``\\r`` in a file whose first
64 KiB hold ``\\r`` and no ``\\n`` (old Mac text: CR-only files were read as one line). A
``\\r`` inside a line of an ``\\n`` file stays text.

Example:
    >>> import io
    >>> list(raw_lines(io.BytesIO(b"uno\\rdos\\rtres"), "old-mac.txt"))
    [b'uno', b'dos', b'tres']
    >>> list(raw_lines(io.BytesIO(b"a\\r\\nb\\n"), "windows.txt"))
    [b'a', b'b']
"""

from keras_nmt.data.errors import CorpusError

# The longest line read (in bytes of UTF-8, or characters of decoded text): a sentence is a few
# hundred; a line of a megabyte is no text of sentences (a binary file, /dev/zero).
MAX_LINE_CHARS = 1 << 20
_BLOCK = 1 << 16


class LineTooLong(CorpusError):
    """A line longer than `MAX_LINE_CHARS`: the input is not text of sentences."""


def raw_lines(stream, name, limit=MAX_LINE_CHARS):
    """Yields the lines of `stream` without their endings, one at a time.

    Args:
        stream: a binary stream (lines are bytes) or a text stream opened with
            ``newline=""`` (lines are str), read with ``stream.read(65536)``.
        name: the input's name for messages (a path, or "stdin").
        limit: the longest line allowed.

    Raises:
        LineTooLong: a line longer than `limit`, naming `name`, its line number and the limit.
    """
    pending = None
    ending = None  # b"\n" / "\n", or b"\r" / "\r" for CR-only text; decided by the first
    number = 0
    while True:
        block = stream.read(_BLOCK)
        if pending is None:
            pending = block[:0]
        pending += block
        if ending is None:
            ending = _first_ending(pending, bool(block))
        if ending is not None:
            *lines, pending = pending.split(ending)
            for line in lines:
                number += 1
                if len(line) > limit:
                    raise _too_long(name, number, limit)
                yield line[:-1] if ending[:1] in ("\n", b"\n") and line[-1:] in ("\r", b"\r") \
                    else line
        if len(pending) > limit:
            raise _too_long(name, number + 1, limit)
        if not block:
            if pending:
                yield pending[:-1] if pending[-1:] in ("\r", b"\r") else pending
            return


def _first_ending(data, more):
    """The line ending of a file that starts with `data` (`more`: more data may follow), or
    None while it cannot be told: ``\n`` once one is seen; ``\r`` when a whole block (or the
    whole file) holds ``\r`` and no ``\n``."""
    newline, carriage = ("\n", "\r") if isinstance(data, str) else (b"\n", b"\r")
    if newline in data:
        return newline
    if carriage in data and (len(data) >= _BLOCK or not more):
        return carriage
    return None if more else newline


def _too_long(name, number, limit):
    return LineTooLong(name, number, "line_too_long",
                       f"longer than {limit:,} characters with no line break: not a text file "
                       "of one sentence per line?")
