"""Readers for parallel corpora: Tatoeba/Anki tab-separated pairs and line-aligned files.

Every reader returns a `ParallelCorpus` (``.pairs``: ``list[tuple[str, str]]`` of
``(source, target)``, ``.stats``: `CorpusStats`). Files may be plain text, ``.gz``, ``.xz`` or
``.zip`` (the single text member, or the one named by ``member=``).

Tatoeba/Anki files (https://www.manythings.org/anki/) hold one pair per line,
``English<TAB>Other language``, with an optional third attribution column that is ignored.
``source_column`` picks the source side; the default, ``0``, reads the first column as the
source and the second as the target, as every other tool does; ``1`` reads them the other way,
e.g. Spanish -> English on the English-first ``spa-eng`` files (the project's main benchmark,
whose recipes say so).

Malformed lines (wrong column count, an empty side, invalid UTF-8) raise `CorpusError`
naming the file and the 1-based line number, or, with ``on_error="skip"``, are skipped and
counted in ``stats.skipped``. A corpus with no pairs left is always an error.

Example:
    >>> corpus = read_tsv("spa-eng.train.tsv.xz")        # doctest: +SKIP
    >>> corpus.pairs[0], corpus.stats.summary()          # doctest: +SKIP
    (('Ve.', 'Go.'), 'spa-eng.train.tsv.xz: read 114,102 lines, kept 114,102 pairs')
"""

from __future__ import annotations

import contextlib
import gzip
import lzma
import os
import re
import zipfile
from collections.abc import Iterator, Sequence
from pathlib import Path

from keras_nmt.workshop.corpora.builtin import BUILTIN_DATASETS, builtin_pairs
from keras_nmt.workshop.corpora.corpus_checks import compressed_file_errors, visible
from keras_nmt.workshop.corpora.data_profile import looks_like_header
from keras_nmt.workshop.corpora.download import download
from keras_nmt.workshop.corpora.errors import CorpusError
from keras_nmt.workshop.corpora.parallel_corpus import CorpusStats, ParallelCorpus
from keras_nmt.workshop.corpora.raw_lines import raw_lines

ON_ERROR_CHOICES = ("raise", "skip")
# Suffixes tried, in order, when a templated path (``{split}``) does not exist as written.
COMPRESSION_SUFFIXES = (".xz", ".gz", ".zip")
_TEXT_MEMBER_SUFFIXES = (".txt", ".tsv")


def _zip_member(archive: zipfile.ZipFile, path, member: str | None) -> str:
    """The member to read: ``member`` if given, else the single text member of the archive.

    Anki zips hold ``spa.txt`` and ``_about.txt``; files whose base name starts with ``_`` or
    contains ``about`` are not candidates.
    """
    names = [info.filename for info in archive.infolist() if not info.is_dir()]
    if member is not None:
        if member in names:
            return member
        matches = [name for name in names if name.rsplit("/", 1)[-1] == member]
        if len(matches) == 1:
            return matches[0]
        raise CorpusError(path, None, "zip_member", f"no member {member!r}; members: {names}")
    candidates = [
        name
        for name in names
        if name.lower().endswith(_TEXT_MEMBER_SUFFIXES)
        and not name.rsplit("/", 1)[-1].startswith("_")
        and "about" not in name.rsplit("/", 1)[-1].lower()
    ]
    if len(candidates) != 1:
        raise CorpusError(
            path,
            None,
            "zip_member",
            f"expected exactly one .txt/.tsv member, found {candidates or names}; pass member=NAME",
        )
    return candidates[0]


@contextlib.contextmanager
def open_binary(path, member: str | None = None) -> Iterator:
    """Opens a plain, ``.gz``, ``.xz`` or ``.zip`` file for reading bytes.

    Args:
        path: the file. The compression is chosen by the suffix.
        member: for ``.zip`` only, the member to read (default: the single text member).

    Yields:
        A binary file object.
    """
    path = Path(path)
    suffix = path.suffix.lower()
    if member is not None and suffix != ".zip":
        raise ValueError(f"member={member!r} is only meaningful for .zip files, not {path}")
    if suffix == ".gz":
        with gzip.open(path, "rb") as stream:
            yield stream
    elif suffix == ".xz":
        with lzma.open(path, "rb") as stream:
            yield stream
    elif suffix == ".zip":
        with zipfile.ZipFile(path) as archive:
            with archive.open(_zip_member(archive, path, member)) as stream:
                yield stream
    else:
        with open(path, "rb") as stream:
            yield stream


def _display_name(path, member: str | None) -> str:
    """The name used in messages: the path, plus the member read for ``.zip`` files."""
    if Path(path).suffix.lower() == ".zip":
        with zipfile.ZipFile(path) as archive:
            member = _zip_member(archive, path, member)
    return str(path) if member is None else f"{path} [member {member}]"


def _decode_lines(stream, name: str, on_error: str, stats: CorpusStats):
    """Yields ``(line_number, text or None)``; ``None`` marks a line skipped for bad UTF-8."""
    # Block by block, each line bounded (`raw_lines`): /dev/zero is one error, not a kill.
    for number, raw in enumerate(raw_lines(stream, name), start=1):
        stats.read += 1
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as error:
            if on_error == "raise":
                raise CorpusError(
                    name, number, "utf8", f"invalid UTF-8 at byte {error.start}: {error.reason}"
                ) from None
            stats.count_skip("utf8", f"{name}:{number}")
            yield number, None
            continue
        if number == 1:
            text = text.removeprefix("\ufeff")  # tolerate a UTF-8 byte-order mark
        yield number, text


def _check_on_error(on_error: str) -> None:
    if on_error not in ON_ERROR_CHOICES:
        raise ValueError(f"on_error must be one of {ON_ERROR_CHOICES}, got {on_error!r}")


def _keep(pair, stats: CorpusStats, pairs: list, max_chars: int | None, keep=None) -> None:
    """Counts `pair` as kept; holds it unless `keep` (numbers among the kept, or a function of
    the number and the pair) leaves it out."""
    if max_chars is not None and (len(pair[0]) > max_chars or len(pair[1]) > max_chars):
        stats.filtered_too_long += 1
        return
    if keep is None or (keep(stats.kept, pair) if callable(keep) else stats.kept in keep):
        pairs.append(pair)
    stats.kept += 1


def _finish(pairs: list, stats: CorpusStats, name: str) -> ParallelCorpus:
    if not stats.kept:
        raise CorpusError(name, None, "empty_corpus", f"no sentence pairs ({stats.summary()})")
    return ParallelCorpus(pairs, stats)


def read_tsv(
    path,
    *,
    source_column: int = 0,
    target_column: int | None = None,
    max_chars: int | None = None,
    on_error: str = "raise",
    member: str | None = None,
    header: str = "skip",
    keep=None,
) -> ParallelCorpus:
    """Reads Tatoeba/Anki tab-separated pairs: ``English<TAB>Other[<TAB>attribution]``.

    Args:
        path: a plain, ``.gz``, ``.xz`` or ``.zip`` file.
        source_column: ``0`` (default): the first column is the source, the second the
            target; ``1``: the other way round, e.g. Spanish -> English on the English-first
            ``spa-eng`` files.
        target_column: with it, ``source_column`` and ``target_column`` pick the two sides of
            a file with any number of columns (e.g. a Tatoeba export with ids and
            attribution); lines with too few columns are malformed.
        max_chars: drop pairs with a side longer than this many characters (counted in
            ``stats.filtered_too_long``); ``None`` keeps all.
        on_error: ``"raise"`` (default) raises `CorpusError` at the first malformed line;
            ``"skip"`` skips malformed lines and counts them in ``stats.skipped``.
        member: for ``.zip`` files, the member to read (default: the single ``.txt``/``.tsv``
            member that is not ``_about.txt``).
        keep: None, or the 0-based numbers (among the pairs kept) of the only ones held
            (``stats`` counts all): a sample of a big file in memory for the sample alone; or
            a function ``keep(number, pair)`` saying whether to hold a pair.

    Returns:
        A `ParallelCorpus` of ``(source, target)`` pairs (sides stripped of surrounding
        whitespace) in file order. Completely blank lines are ignored and counted in
        ``stats.blank``.

    Raises:
        CorpusError: a malformed line (``"columns"``: not 2 or 3 tab-separated columns,
            ``"empty_side"``, ``"utf8"``) with the file and line number, or an empty corpus.
        FileNotFoundError: no such file.
    """
    _check_on_error(on_error)
    if target_column is None and source_column not in (0, 1):
        raise ValueError(
            f"source_column must be 0 (English) or 1 (other side), got {source_column}; "
            "give target_column too to read other columns"
        )
    if target_column is not None and target_column == source_column:
        raise ValueError(f"source and target column are both {source_column}")
    first, second = (0, 1) if target_column is None else (source_column, target_column)
    expected = "2 or 3" if target_column is None else f"at least {max(first, second) + 1}"
    name = _display_name(path, member)
    stats = CorpusStats(source=name, max_chars=max_chars)
    pairs: list[tuple[str, str]] = []
    with open_binary(path, member) as stream, compressed_file_errors(path, stream):
        for number, text in _decode_lines(stream, name, on_error, stats):
            if text is None:
                continue
            if not text.strip():
                stats.blank += 1
                continue
            columns = text.split("\t")
            if number == 1 and header == "skip" and looks_like_header(columns):
                stats.header = text
                continue
            if len(columns) not in (2, 3) if target_column is None else len(columns) <= max(
                first, second
            ):
                if on_error == "raise":
                    raise CorpusError(
                        name,
                        number,
                        "columns",
                        f"expected {expected} tab-separated columns "
                        f"(English<TAB>Other[<TAB>attribution]), found {len(columns)}: "
                        f"{text[:80]!r}",
                    )
                stats.count_skip("columns", f"{name}:{number}")
                continue
            english, other = columns[first].strip(), columns[second].strip()
            if not english or not other:
                if on_error == "raise":
                    side = "first (English)" if not english else "second"
                    raise CorpusError(name, number, "empty_side", f"the {side} column is empty")
                stats.count_skip("empty_side", f"{name}:{number}")
                continue
            if not visible(english) or not visible(other):
                stats.count_skip("invisible", f"{name}:{number}")
                continue
            swap = source_column == 1 if target_column is None else False
            pair = (other, english) if swap else (english, other)
            _keep(pair, stats, pairs, max_chars, keep)
    return _finish(pairs, stats, name)


def read_aligned(
    source_path,
    target_path,
    *,
    max_chars: int | None = None,
    on_error: str = "raise",
    keep=None,
) -> ParallelCorpus:
    """Reads line-aligned files: line ``i`` of the source file translates line ``i`` of the target.

    Args:
        source_path: source sentences, one per line (plain, ``.gz``, ``.xz`` or ``.zip``).
        target_path: target sentences, one per line, same number of lines.
        max_chars: drop pairs with a side longer than this (``stats.filtered_too_long``).
        on_error: ``"raise"`` or ``"skip"``; an empty line on either side or invalid UTF-8 is
            malformed (reasons ``"empty_side"``, ``"utf8"``). Skipping keeps the alignment.
        keep: as in `read_tsv`.

    Returns:
        A `ParallelCorpus`; ``stats.read`` counts line pairs.

    Raises:
        CorpusError: a malformed line (file and line named), files with different line
            counts (``"length_mismatch"``, never skipped), or an empty corpus.
    """
    _check_on_error(on_error)
    name = f"{source_path} + {target_path}"
    stats = CorpusStats(source=name, max_chars=max_chars)
    # Each side counts its own lines into a scratch object; `stats.read` counts line pairs.
    source_counts = CorpusStats(source=str(source_path))
    target_counts = CorpusStats(source=str(target_path))
    pairs: list[tuple[str, str]] = []
    with (
        open_binary(source_path) as source_stream,
        open_binary(target_path) as target_stream,
        compressed_file_errors(source_path, source_stream),
        compressed_file_errors(target_path, target_stream),
    ):
        source_lines = _decode_lines(source_stream, str(source_path), on_error, source_counts)
        target_lines = _decode_lines(target_stream, str(target_path), on_error, target_counts)
        sentinel = (None, None)
        while True:
            number, source = next(source_lines, sentinel)
            target_number, target = next(target_lines, sentinel)
            if number is None or target_number is None:
                if number is not None or target_number is not None:
                    # Count the remaining lines so the message gives both totals.
                    for _ in source_lines:
                        pass
                    for _ in target_lines:
                        pass
                    raise CorpusError(
                        name,
                        None,
                        "length_mismatch",
                        f"the files are not line-aligned: {source_counts.read:,} lines in "
                        f"{source_path}, {target_counts.read:,} lines in {target_path}",
                    )
                break
            stats.read += 1
            if source is None or target is None:
                stats.count_skip("utf8")
                continue
            source, target = source.strip(), target.strip()
            if not source or not target:
                if on_error == "raise":
                    bad = source_path if not source else target_path
                    raise CorpusError(
                        bad, number, "empty_side", "empty line in a line-aligned file"
                    )
                stats.count_skip("empty_side", f"{source_path}:{number}")
                continue
            if not visible(source) or not visible(target):
                stats.count_skip("invisible", f"{source_path}:{number}")
                continue
            _keep((source, target), stats, pairs, max_chars, keep)
    return _finish(pairs, stats, name)


def resolve_path(path) -> Path:
    """``path`` if it exists, else the first of ``path`` + ``.xz``/``.gz``/``.zip`` that exists.

    Raises:
        FileNotFoundError: none exists.
    """
    path = Path(path).expanduser()
    if path.exists():
        return path
    for suffix in COMPRESSION_SUFFIXES:
        candidate = path.with_name(path.name + suffix)
        if candidate.exists():
            return candidate
    tried = ", ".join(str(path) + suffix for suffix in ("",) + COMPRESSION_SUFFIXES)
    raise FileNotFoundError(f"corpus file not found (tried {tried})")


def filter_pairs(
    pairs: Sequence[tuple[str, str]], source: str, max_chars: int | None = None
) -> ParallelCorpus:
    """Wraps in-memory pairs in a `ParallelCorpus`, dropping pairs longer than ``max_chars``."""
    stats = CorpusStats(source=source, max_chars=max_chars)
    kept: list[tuple[str, str]] = []
    for pair in pairs:
        stats.read += 1
        _keep(tuple(pair), stats, kept, max_chars)
    return _finish(kept, stats, source)


_ANKI_NAME = re.compile(r"^[a-z]{3}-eng$")


def shared_data_dir() -> Path:
    """The directory of the real corpora: ``$KERAS_NMT_SHARED_DATA``, else ``../shared/data``
    next to the repository (see its SOURCES.md). It may not exist; callers skip or say so."""
    default = Path(__file__).resolve().parents[3] / ".." / "shared" / "data"
    return Path(os.environ.get("KERAS_NMT_SHARED_DATA", default)).resolve()


def has_splits(spec) -> bool:
    """Whether ``load_corpus(spec, split)`` takes a split: a built-in name or a ``{split}`` path.

    A single file, aligned files or an Anki download have no splits; callers hold out their own.
    """
    if isinstance(spec, (tuple, list)):
        return False
    text = os.fspath(spec)
    return text in BUILTIN_DATASETS or "{split}" in text


def corpus_paths(spec, split: str | None = None) -> list[Path]:
    """The files `load_corpus(spec, split)` reads: none for a built-in dataset or an Anki name
    (generated or downloaded), one for a TSV file, two for ``SOURCE_FILE,TARGET_FILE``.

    Example:
        >>> corpus_paths("data/spa-eng.{split}.tsv", "test")  # doctest: +SKIP
        [PosixPath('data/spa-eng.test.tsv.xz')]
    """
    if isinstance(spec, (tuple, list)):
        return [Path(part).expanduser() for part in spec]
    text = os.fspath(spec)
    if text in BUILTIN_DATASETS:
        return []
    if "{split}" in text:
        return [resolve_path(text.format(split=split or "train"))]
    path = Path(text).expanduser()
    if path.exists():
        return [path]
    if "," in text:
        parts = [Path(part.strip()).expanduser() for part in text.split(",", 1)]
        if all(part.is_file() for part in parts):
            return parts
    return []


def first_line_is_header(path) -> bool:
    """Whether the first line of a TSV file (plain or compressed) reads as column names."""
    try:
        with open_binary(path) as stream:
            first = stream.readline().decode("utf-8", errors="replace")
    except (OSError, EOFError, lzma.LZMAError, zipfile.BadZipFile, CorpusError):
        return False
    return looks_like_header(first.removeprefix("\ufeff").rstrip("\r\n").split("\t"))


def load_corpus(
    spec,
    split: str | None = None,
    *,
    source_column: int = 0,
    target_column: int | None = None,
    max_chars: int | None = None,
    on_error: str = "raise",
    member: str | None = None,
    header: str = "skip",
    size: int | None = None,
    seed: int = 0,
    cache_dir: str | None = None,
    keep=None,
) -> ParallelCorpus:
    """Loads a corpus from a ``--data`` value: a built-in name, a path, or an Anki name.

    ``spec`` is tried in this order:

    1. a built-in dataset name (``"dates"``, see `builtin.BUILTIN_DATASETS`):
       ``split`` (``"train"``, the default, ``"valid"`` or ``"test"``), ``size`` (default:
       the split's default size) and ``seed`` are passed to `builtin_pairs`;
    2. a path containing ``{split}``, e.g. ``../shared/data/spa-eng.{split}.tsv``: formatted with
       ``split`` (required), then ``.xz``/``.gz``/``.zip`` are tried when the plain name is
       missing, so ``spa-eng.train.tsv.xz`` is found for ``split="train"``;
    3. an existing file: read with `read_tsv` (``split`` must be ``None``: a single file has
       no splits, and reading it as ``"test"`` would silently evaluate on training data);
    4. two comma-separated paths, or a 2-tuple of paths, ``SOURCE_FILE,TARGET_FILE``:
       line-aligned files (`read_aligned`);
    5. an Anki name such as ``"spa-eng"``: downloaded with `download`
       (`keras_nmt.workshop.corpora.download`; needs the network) and its ``spa.txt`` member read.

    Args:
        spec: see above (``str``, ``os.PathLike`` or a 2-tuple of paths).
        split: ``"train"``, ``"valid"`` or ``"test"``; see above.
        source_column, target_column, max_chars, on_error, member, header: as in `read_tsv`.
        size: built-in datasets only, number of pairs.
        seed: built-in datasets only, the generator seed.
        cache_dir: Anki downloads only, passed to ``keras.utils.get_file``.
        keep: files only, as in `read_tsv`.

    Returns:
        A `ParallelCorpus`.

    Raises:
        FileNotFoundError: ``spec`` is none of the above.
        CorpusError: malformed input (see `read_tsv`).
        DownloadError: an Anki name could not be downloaded.
    """
    if isinstance(spec, (tuple, list)):
        if len(spec) != 2:
            raise ValueError(f"expected (source_file, target_file), got {spec!r}")
        return read_aligned(spec[0], spec[1], max_chars=max_chars, on_error=on_error, keep=keep)
    text = os.fspath(spec)
    if text in BUILTIN_DATASETS and os.path.isfile(text):
        raise ValueError(f"--data {text}: both the built-in data set {text!r} and the file "
                         f"{os.path.abspath(text)}; write ./{text} for the file, or rename it "
                         "to use the built-in one")
    if text in BUILTIN_DATASETS:
        split = split or "train"
        pairs = builtin_pairs(text, split=split, size=size, seed=seed)
        return filter_pairs(pairs, f"{text}:{split} (seed {seed})", max_chars)
    tsv_options = dict(
        source_column=source_column, target_column=target_column, max_chars=max_chars,
        on_error=on_error, member=member, header=header, keep=keep,
    )
    if "{split}" in text:
        if split is None:
            raise ValueError(
                f"{text} has a {{split}} placeholder: pass split='train'|'valid'|'test'"
            )
        return read_tsv(resolve_path(text.format(split=split)), **tsv_options)
    path = Path(text).expanduser()
    if path.is_dir():
        raise CorpusError(path, None, "directory", "is a directory, not a corpus file")
    if path.is_file():
        if split is not None:
            raise ValueError(
                f"{text} is a single file with no splits; got split={split!r}. Pass a path "
                "with a {split} placeholder (e.g. data/spa-eng.{split}.tsv) or one file per split"
            )
        return read_tsv(path, **tsv_options)
    if "," in text:
        source_file, target_file = (part.strip() for part in text.split(",", 1))
        if Path(source_file).expanduser().is_file() and Path(target_file).expanduser().is_file():
            return read_aligned(
                Path(source_file).expanduser(),
                Path(target_file).expanduser(),
                max_chars=max_chars,
                on_error=on_error,
                keep=keep,
            )
    if _ANKI_NAME.match(text):
        if split is not None:
            raise ValueError(
                f"the Anki file {text} has no splits; got split={split!r}. Split it yourself "
                "or use the fixed splits in ../shared/data"
            )
        return read_tsv(download(text, cache_dir=cache_dir), **tsv_options)
    raise FileNotFoundError(
        f"--data {text!r}: not a built-in dataset ({', '.join(sorted(BUILTIN_DATASETS))}), "
        "not an existing file, not SOURCE_FILE,TARGET_FILE, not an Anki name like 'spa-eng'"
    )
