"""Lines of a stream read a block at a time, none longer than `MAX_LINE_CHARS` (`translate
--input /dev/zero` grew until the kernel killed it). A line ends at ``\\n`` (a ``\\r`` before it
dropped), or at ``\\r`` in a file whose first 64 KiB hold ``\\r`` and no ``\\n`` (old Mac text).

Example:
    >>> list(raw_lines(io.BytesIO(b"uno\\rdos\\rtres"), "old-mac.txt"))  # doctest: +SKIP
    [b'uno', b'dos', b'tres']
"""

from keras_nmt.workshop.corpora.errors import CorpusError

MAX_LINE_CHARS = 1 << 20  # a sentence is a few hundred; a megabyte is no text of sentences
_BLOCK = 1 << 16


class LineTooLong(CorpusError):
    """A line longer than `MAX_LINE_CHARS`: the input is not text of sentences."""


def raw_lines(stream, name, limit=MAX_LINE_CHARS):
    """Yields the lines of `stream` (binary: bytes; text read with ``newline=""``: str) without
    their endings; `LineTooLong` names `name` and the line longer than `limit`."""
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
    """The line ending of a file starting with `data` (`more`: more may follow), or None."""
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
