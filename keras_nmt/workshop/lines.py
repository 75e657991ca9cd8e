"""Line-aligned text: line N of an output belongs to line N of its input.

Lines end at ``\\n`` only (``\\r\\n`` too, its ``\\r`` dropped). `str.splitlines` also breaks at
U+2028, U+0085, form feeds and other separators that may sit inside a sentence, which would shift
every later translation onto the wrong input. A line written out never contains ``\\n``.

Example:
    >>> split_lines("4th of July\\u20281999\\n25.12.2001\\n")
    ['4th of July\\u20281999', '25.12.2001']
    >>> one_line("two\\nlines")
    'two lines'
"""

import codecs
import contextlib
import sys

from keras_nmt.workshop.corpora.corpus import open_binary
from keras_nmt.workshop.corpora.corpus_checks import compressed_file_errors
from keras_nmt.workshop.corpora.raw_lines import raw_lines
from keras_nmt.workshop.output_file import write_text


def split_lines(text):
    """The lines of `text`, split at ``\\n`` only; a final ``\\n`` ends the last line."""
    if not text:
        return []
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return [line[:-1] if line.endswith("\r") else line for line in lines]


def decode_utf8(data):
    """Bytes as text; invalid UTF-8 becomes U+FFFD (a line is never lost to one bad byte)."""
    return data.decode("utf-8", errors="replace")


def _utf16(data):
    """Whether bytes `data` open with a UTF-16 byte order mark (Windows' "Unicode")."""
    return data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE))


def text_lines(data):
    """The lines of a whole input, bytes (`decode_utf8`) or text (`split_lines`). A byte order
    mark opening it (Windows editors write one) is dropped, as a corpus file's is: it would
    otherwise be read as part of the first sentence, and change its translation. Bytes that
    open with a UTF-16 byte order mark (Windows' "Unicode") are UTF-16: read as UTF-8 they gave
    lines of garbage, not even one per line."""
    if isinstance(data, bytes):
        data = data.decode("utf-16", errors="replace") if _utf16(data) else decode_utf8(data)
    return split_lines(data.removeprefix("\ufeff"))


def read_bytes(path):
    """The bytes of the file at `path`: plain, or `.gz`, `.xz` or `.zip` as the corpus files of
    `--data` are (`open_binary`)."""
    with open_binary(path) as stream:
        return stream.read()


def read_lines(path):
    """The lines of the text file at `path` (`each_line`: UTF-8, or UTF-16 with its mark;
    plain or compressed), read line by line."""
    with open_binary(path) as stream, compressed_file_errors(path, stream):
        return list(each_line(stream, str(path), []))


def lines_not_utf8(data):
    """The 1-based numbers of the lines of `data` (bytes) that are not valid UTF-8 (none for
    UTF-16 with its mark, which `text_lines` reads as such)."""
    if _utf16(data):
        return []
    try:
        data.decode("utf-8")
        return []
    except UnicodeDecodeError:
        pass
    bad = []
    for number, line in enumerate(data.split(b"\n"), 1):
        try:
            line.decode("utf-8")
        except UnicodeDecodeError:
            bad.append(number)
    return bad


def warn_if_not_utf8(data, name, warn):
    """Calls `warn(message)` when `data` (bytes) holds lines that are not UTF-8 (`warn_bad`)."""
    warn_bad(lines_not_utf8(data), name, warn)


def warn_bad(bad, name, warn):
    """Calls `warn(message)` when lines `bad` (1-based numbers) of the input `name` are not
    UTF-8: their bad bytes are read as U+FFFD (the other lines keep their places), and a
    Latin-1 or Windows-1252 file, whose every accented letter is such a byte, would otherwise
    translate badly without a word."""
    if bad:
        lines = f"{len(bad)} line{'s' if len(bad) > 1 else ''}"
        warn(f"{name}: {lines} not UTF-8 (the first: line {bad[0]}); their bad bytes are read "
             "as U+FFFD (a Latin-1 or Windows-1252 file? convert it first, e.g. "
             f"`iconv -f cp1252 -t utf-8 {name if name != 'stdin' else 'FILE'}`)")


class _Prefixed:
    """A stream whose first bytes, already read (to look for a byte order mark), come first."""

    def __init__(self, prefix, stream):
        self.prefix, self.stream = prefix, stream

    def read(self, size):
        if self.prefix:
            data, self.prefix = self.prefix[:size], self.prefix[size:]
            return data
        return self.stream.read(size)


class _Utf16:
    """A binary UTF-16 stream (with its mark) read as text, block by block."""

    def __init__(self, stream):
        self.stream = stream
        self.decoder = codecs.getincrementaldecoder("utf-16")(errors="replace")

    def read(self, size):
        while True:
            data = self.stream.read(size)
            text = self.decoder.decode(data, final=not data)
            if text or not data:
                return text


def each_line(stream, name, bad):
    """Yields the lines of a binary stream one by one, in bounded memory
    (`keras_nmt.workshop.corpora.raw_lines`: a line longer than its limit, such as all of
    /dev/zero, is one error naming `name`; CR-only text is read as lines). UTF-8, a byte order
    mark opening it dropped (Windows editors write one: it would change the first sentence's
    translation); bytes that open with a UTF-16 mark (Windows' "Unicode") are UTF-16 (read as
    UTF-8 they gave lines of garbage). The 1-based number of each line that is not valid UTF-8
    is appended to the list `bad` (its bad bytes read as U+FFFD, the line kept in its place)."""
    head = stream.read(2)
    stream = _Prefixed(head, stream)
    if isinstance(head, str) or _utf16(head):  # a text stream (a test's stdin), or UTF-16
        text = stream if isinstance(head, str) else _Utf16(stream)
        for number, line in enumerate(raw_lines(text, name)):
            yield line.removeprefix("\ufeff") if number == 0 else line
        return
    for number, raw in enumerate(raw_lines(stream, name), 1):
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError:
            bad.append(number)
            line = decode_utf8(raw)
        yield line.removeprefix("\ufeff") if number == 1 else line


def one_sentence_per_line(lines, name, first=1):
    """`lines`, refused when most of them hold a tab: a tab-separated file (`source<TAB>target`,
    a test set) read as sentences would translate each whole line, the other column included.
    A stray tab in a few lines is text, and kept.

    Args:
        lines: the input's lines (`read_lines`, `split_lines`), or a chunk of them
            (`input_chunks`).
        name: the input's name for the message (a path, or "stdin").
        first: the number of `lines[0]` in the input.

    Returns:
        `lines`.

    Raises:
        ValueError: naming `name` and its first line with a tab.
    """
    tabbed = [number for number, line in enumerate(lines, first) if "\t" in line]
    if tabbed and 2 * len(tabbed) > sum(1 for line in lines if line.strip()):
        columns = lines[tabbed[0] - first].count("\t") + 1
        raise ValueError(f"{name} line {tabbed[0]} has {columns} tab-separated columns: one "
                         "sentence per line is read (a TSV file? give one column, e.g. "
                         "`cut -f1`)")
    return lines


def input_lines(path=None, warn=None):
    """The sentences of a command's input, one per line: the file at `path` (plain or
    compressed), or stdin when `path` is None, read whole (`input_chunks` in one chunk; closing
    the generator closes the file now, not when it is collected)."""
    with contextlib.closing(input_chunks(path, None, warn)) as chunks:
        return next(chunks)


def input_chunks(path=None, size=4096, warn=None):
    """The sentences of a command's input, one per line, in lists of `size` lines at most (all
    of them when `size` is None), each read as it is asked for: a command that translates chunk
    by chunk holds one chunk, not the input (`translate`).

    The file at `path` (plain or compressed), or stdin when `path` is None, is read line by line
    (`each_line`); each chunk is checked by `one_sentence_per_line`. Lines that are not UTF-8
    are read all the same; `warn(message)`, if given, is told of them (`warn_bad`): those of
    the first chunk once it is read, any later ones together at the end."""
    name = "stdin" if path is None else str(path)
    with contextlib.ExitStack() as stack:
        if path is not None:
            # A cut .gz (or .xz) is named, with the file: EOFError said neither.
            stream = stack.enter_context(open_binary(path))
            stack.enter_context(compressed_file_errors(path, stream))
        else:
            stream = getattr(sys.stdin, "buffer", sys.stdin)  # bytes: may not be UTF-8
        bad, told, chunk, first = [], 0, [], 1
        lines = each_line(stream, name, bad)
        while True:
            try:
                line = next(lines, None)
            except OSError as error:  # a read error names the input, not the command's output
                if error.filename is not None or error.errno is None:
                    raise
                raise OSError(error.errno, error.strerror, name) from error
            if line is None:
                break
            chunk.append(line)
            if len(chunk) == size:
                if warn is not None and first == 1:
                    warn_bad(bad, name, warn)
                    told = len(bad)
                yield one_sentence_per_line(chunk, name, first)
                first, chunk = first + size, []
        if warn is not None:
            warn_bad(bad[told:], name, warn)
        if chunk or first == 1:
            yield one_sentence_per_line(chunk, name, first)


def iter_lines(stream):
    """The lines of a stream as they arrive (interactive input), split at ``\n`` only: pass a
    binary stream (``sys.stdin.buffer``) or a text stream (its `readline` ends at ``\n``)."""
    while line := stream.readline():
        yield split_lines(decode_utf8(line) if isinstance(line, bytes) else line)[0]


def one_line(text):
    """`text` with any line break replaced by a space, so that it stays one output line."""
    return " ".join(text.split("\n")) if "\n" in text else text


def write_lines(path, lines):
    """Writes `lines` (each made `one_line`) to `path`, whole or not at all (`atomic_path`)."""
    write_text(path, "".join(one_line(line) + "\n" for line in lines), newline="\n")
