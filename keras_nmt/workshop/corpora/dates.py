"""The built-in "dates" dataset: dates written in many human formats -> ISO ``YYYY-MM-DD``.

Generated deterministically from a seed, no download. A small attention model learns it in
minutes on a CPU, but it needs attention (or a lot of memory) to do well: the day, month and year
must be copied or translated from positions that vary from format to format, and weekday names
must be ignored.

Examples of sources (all for 2021-03-03, a Wednesday)::

    March 3, 2021                  month_day_year
    Wednesday, March 3, 2021       weekday_month_day_year
    3 March 2021                   day_month_year
    3rd of March, 2021             ordinal_of_month_year
    March 3rd, 2021                month_ordinal_year
    the third of march, 2021       words_ordinal_of_month_year
    Wednesday the 3rd of March 2021  weekday_ordinal_of_month_year
    3 Mar 2021                     day_mon_year
    mar 3 2021                     mon_day_year
    Wed, 3 Mar 2021                weekday_day_mon_year
    03-Mar-21                      dd_mon_yy
    3.3.2021 / 03.03.2021          dmy_dots
    2021/03/03                     ymd_slashes
    20210303                       ymd_compact

Conventions, chosen so that every source string means exactly one date:

* Numeric formats use one fixed order each: dots are European day.month.year
  (``3.4.2021`` is 3 April), slashes are year/month/day (``2021/04/03``). The US
  ``MM/DD/YYYY`` order is never used, so no string is ambiguous.
* Two-digit years (``03-Mar-21``): ``50``-``99`` mean 1950-1999 and ``00``-``49`` mean
  2000-2049, which is exactly the dataset's year range (`MIN_YEAR`-`MAX_YEAR`).
* Weekday names are the true weekday of the date.
* Formats with words appear in their natural capitalisation, all lower-case or all upper-case.

Splits never overlap: each calendar day belongs to exactly one split through a fixed keyed
hash of its ISO string (80% train, 10% valid, 10% test), independent of the sampling seed, so no
test date is seen in training in any format, whatever the seeds. Because a source string
determines its date, source strings never repeat across splits either. Within a split, source
strings are unique.
"""

from __future__ import annotations

import datetime
import hashlib
import random
from collections.abc import Callable
from functools import cache

MIN_YEAR = 1950
MAX_YEAR = 2049
SPLITS = ("train", "valid", "test")
# Percent of calendar days per split (train, valid, test).
SPLIT_PERCENT = (80, 10, 10)
DEFAULT_SIZES = {"train": 20_000, "valid": 1_000, "test": 1_000}

MONTHS = (
    "January", "February", "March", "April", "May", "June",
    "July", "August", "September", "October", "November", "December",
)  # fmt: skip
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")

_ORDINAL_UNITS = (
    "", "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth",
    "tenth", "eleventh", "twelfth", "thirteenth", "fourteenth", "fifteenth", "sixteenth",
    "seventeenth", "eighteenth", "nineteenth",
)  # fmt: skip


def ordinal_suffix(day: int) -> str:
    """``"st"``, ``"nd"``, ``"rd"`` or ``"th"``: ``ordinal_suffix(3) == "rd"``, 11-13 take "th"."""
    if 11 <= day % 100 <= 13:
        return "th"
    return {1: "st", 2: "nd", 3: "rd"}.get(day % 10, "th")


def ordinal_word(day: int) -> str:
    """The day in words, 1-31: ``ordinal_word(3) == "third"``, ``(21) == "twenty-first"``."""
    if not 1 <= day <= 31:
        raise ValueError(f"day must be 1..31, got {day}")
    if day < 20:
        return _ORDINAL_UNITS[day]
    tens = "twenty" if day < 30 else "thirty"
    if day % 10 == 0:
        return tens[:-1] + "ieth"  # twentieth, thirtieth
    return f"{tens}-{_ORDINAL_UNITS[day % 10]}"


def _month(date: datetime.date) -> str:
    return MONTHS[date.month - 1]


def _mon(date: datetime.date) -> str:
    return MONTHS[date.month - 1][:3]


def _weekday(date: datetime.date) -> str:
    return WEEKDAYS[date.weekday()]


def _nth(date: datetime.date) -> str:
    return f"{date.day}{ordinal_suffix(date.day)}"


def _comma(rng: random.Random) -> str:
    return "," if rng.random() < 0.5 else ""


# name -> (writes a date, has words that get capitalisation variants)
DATE_FORMATS: dict[str, tuple[Callable[[datetime.date, random.Random], str], bool]] = {
    "month_day_year": (lambda d, r: f"{_month(d)} {d.day}, {d.year}", True),
    "weekday_month_day_year": (lambda d, r: f"{_weekday(d)}, {_month(d)} {d.day}, {d.year}", True),
    "day_month_year": (lambda d, r: f"{d.day} {_month(d)} {d.year}", True),
    "ordinal_of_month_year": (lambda d, r: f"{_nth(d)} of {_month(d)}{_comma(r)} {d.year}", True),
    "month_ordinal_year": (lambda d, r: f"{_month(d)} {_nth(d)}, {d.year}", True),
    "words_ordinal_of_month_year": (
        lambda d, r: f"the {ordinal_word(d.day)} of {_month(d)}{_comma(r)} {d.year}",
        True,
    ),
    "weekday_ordinal_of_month_year": (
        lambda d, r: f"{_weekday(d)} the {_nth(d)} of {_month(d)} {d.year}",
        True,
    ),
    "day_mon_year": (lambda d, r: f"{d.day} {_mon(d)} {d.year}", True),
    "mon_day_year": (lambda d, r: f"{_mon(d)} {d.day} {d.year}", True),
    "weekday_day_mon_year": (lambda d, r: f"{_weekday(d)[:3]}, {d.day} {_mon(d)} {d.year}", True),
    "dd_mon_yy": (lambda d, r: f"{d.day:02d}-{_mon(d)}-{d.year % 100:02d}", True),
    "dmy_dots": (
        lambda d, r: (
            f"{d.day:02d}.{d.month:02d}.{d.year}"
            if r.random() < 0.5
            else f"{d.day}.{d.month}.{d.year}"
        ),
        False,
    ),
    "ymd_slashes": (lambda d, r: f"{d.year}/{d.month:02d}/{d.day:02d}", False),
    "ymd_compact": (lambda d, r: f"{d.year}{d.month:02d}{d.day:02d}", False),
}


def format_date(
    date: datetime.date, format_name: str, rng: random.Random, case: str = "as_is"
) -> str:
    """Writes ``date`` in one of `DATE_FORMATS`.

    Args:
        date: a ``datetime.date``.
        format_name: a key of `DATE_FORMATS`.
        rng: decides the optional parts (comma before the year, zero padding of dots).
        case: ``"as_is"``, ``"lower"`` or ``"upper"``.

    Returns:
        The source string, e.g. ``format_date(date(2021, 3, 3), "dd_mon_yy", rng) == "03-Mar-21"``.
    """
    writer, _ = DATE_FORMATS[format_name]
    text = writer(date, rng)
    if case == "lower":
        return text.lower()
    if case == "upper":
        return text.upper()
    if case != "as_is":
        raise ValueError(f"case must be 'as_is', 'lower' or 'upper', got {case!r}")
    return text


def split_of(date: datetime.date) -> str:
    """The split a calendar day belongs to, fixed for all seeds (a keyed hash of its ISO string)."""
    digest = hashlib.blake2b(
        date.isoformat().encode("ascii"), key=b"keras_nmt.dates", digest_size=8
    ).digest()
    bucket = int.from_bytes(digest, "big") % 100
    if bucket < SPLIT_PERCENT[0]:
        return "train"
    if bucket < SPLIT_PERCENT[0] + SPLIT_PERCENT[1]:
        return "valid"
    return "test"


@cache
def split_days(split: str) -> tuple[datetime.date, ...]:
    """All calendar days from ``MIN_YEAR``-01-01 to ``MAX_YEAR``-12-31 that belong to ``split``."""
    if split not in SPLITS:
        raise ValueError(f"split must be one of {SPLITS}, got {split!r}")
    first = datetime.date(MIN_YEAR, 1, 1).toordinal()
    last = datetime.date(MAX_YEAR, 12, 31).toordinal()
    days = (datetime.date.fromordinal(ordinal) for ordinal in range(first, last + 1))
    return tuple(day for day in days if split_of(day) == split)


def date_pairs(
    split: str = "train", size: int | None = None, seed: int = 0, with_formats: bool = False
) -> list:
    """Samples ``(source, target)`` pairs of the dates dataset.

    Args:
        split: ``"train"``, ``"valid"`` or ``"test"`` (disjoint calendar days).
        size: number of pairs (default `DEFAULT_SIZES`: 20,000 / 1,000 / 1,000).
        seed: same seed -> identical list; different seeds -> different samples.
        with_formats: also return the format name of each pair (for tests).

    Returns:
        ``[(source, "YYYY-MM-DD"), ...]`` with unique sources, or
        ``[(source, target, format_name), ...]`` when ``with_formats``.

    Example:
        >>> date_pairs("train", size=2, seed=0)  # doctest: +SKIP
        [('the twelfth of july 1987', '1987-07-12'), ('2031/02/17', '2031-02-17')]
    """
    size = DEFAULT_SIZES[split] if size is None and split in DEFAULT_SIZES else size
    days = split_days(split)
    if size < 0:
        raise ValueError(f"size must be >= 0, got {size}")
    # A string seed is hashed with SHA-512 by `random.Random`: stable across runs and
    # independent of PYTHONHASHSEED.
    rng = random.Random(f"keras_nmt.dates/{split}/{seed}")
    names = sorted(DATE_FORMATS)
    seen: set[str] = set()
    pairs = []
    attempts = 0
    while len(pairs) < size:
        attempts += 1
        if attempts > 20 * size + 1000:
            raise ValueError(f"cannot draw {size} distinct {split} sources; use a smaller size")
        day = rng.choice(days)
        name = rng.choice(names)
        has_words = DATE_FORMATS[name][1]
        case = (
            rng.choices(("as_is", "lower", "upper"), weights=(6, 3, 1))[0] if has_words else "as_is"
        )
        source = format_date(day, name, rng, case)
        if source in seen:
            continue
        seen.add(source)
        target = day.isoformat()
        pairs.append((source, target, name) if with_formats else (source, target))
    return pairs
