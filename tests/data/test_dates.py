"""The built-in dates dataset: determinism, formats parse back, weekdays, disjoint splits."""

import calendar
import datetime
import random
import re

import pytest

from keras_nmt.workshop.corpora import dates
from keras_nmt.workshop.corpora.builtin import BUILTIN_DATASETS, builtin_pairs

# strptime patterns of each format, applied after `_normalize` (lower-case, no commas, no
# ordinal suffixes, day words replaced by numbers). dd_mon_yy is parsed by hand (century rule).
PATTERNS = {
    "month_day_year": "%B %d %Y",
    "weekday_month_day_year": "%A %B %d %Y",
    "day_month_year": "%d %B %Y",
    "ordinal_of_month_year": "%d of %B %Y",
    "month_ordinal_year": "%B %d %Y",
    "words_ordinal_of_month_year": "the %d of %B %Y",
    "weekday_ordinal_of_month_year": "%A the %d of %B %Y",
    "day_mon_year": "%d %b %Y",
    "mon_day_year": "%b %d %Y",
    "weekday_day_mon_year": "%a %d %b %Y",
    "dmy_dots": "%d.%m.%Y",
    "ymd_slashes": "%Y/%m/%d",
    "ymd_compact": "%Y%m%d",
}
DAY_WORDS = {dates.ordinal_word(day): day for day in range(1, 32)}
WEEKDAY_FORMATS = {
    "weekday_month_day_year",
    "weekday_ordinal_of_month_year",
    "weekday_day_mon_year",
}


def _normalize(text: str) -> str:
    text = text.lower().replace(",", "")
    text = re.sub(r"\b(\d+)(st|nd|rd|th)\b", r"\1", text)
    return re.sub(r"[a-z]+(-[a-z]+)?", lambda m: str(DAY_WORDS.get(m[0], m[0])), text)


def parse(source: str, format_name: str) -> datetime.date:
    """Reads a generated source back with datetime (independently of the generator)."""
    if format_name == "dd_mon_yy":
        day, mon, year = source.split("-")
        month = datetime.datetime.strptime(mon, "%b").month
        century = 1900 if int(year) >= 50 else 2000
        return datetime.date(century + int(year), month, int(day))
    parsed = datetime.datetime.strptime(_normalize(source), PATTERNS[format_name]).date()
    if format_name in WEEKDAY_FORMATS:
        # strptime ignores a weekday that contradicts the date: check it here.
        first = source.split()[0].strip(",").lower()
        assert first in (calendar.day_name[parsed.weekday()].lower(),
                         calendar.day_abbr[parsed.weekday()].lower()), source  # fmt: skip
    return parsed


def test_every_format_has_a_parser():
    assert set(PATTERNS) | {"dd_mon_yy"} == set(dates.DATE_FORMATS)
    assert len(dates.DATE_FORMATS) == 14


def test_ordinals():
    words = [dates.ordinal_word(day) for day in (1, 2, 3, 11, 12, 20, 21, 22, 30, 31)]
    assert words == ["first", "second", "third", "eleventh", "twelfth", "twentieth",
                     "twenty-first", "twenty-second", "thirtieth", "thirty-first"]  # fmt: skip
    assert len(DAY_WORDS) == 31
    suffixes = [dates.ordinal_suffix(day) for day in (1, 2, 3, 4, 11, 12, 13, 21, 22, 23, 31)]
    assert suffixes == ["st", "nd", "rd", "th", "th", "th", "th", "st", "nd", "rd", "st"]


def test_examples_for_one_date():
    day = datetime.date(2021, 3, 3)  # a Wednesday
    rng = random.Random(0)
    assert dates.format_date(day, "weekday_month_day_year", rng) == "Wednesday, March 3, 2021"
    assert dates.format_date(day, "dd_mon_yy", rng) == "03-Mar-21"
    assert dates.format_date(day, "ymd_slashes", rng) == "2021/03/03"
    assert dates.format_date(day, "mon_day_year", rng, "lower") == "mar 3 2021"
    assert dates.format_date(day, "words_ordinal_of_month_year", rng, "upper") in (
        "THE THIRD OF MARCH, 2021", "THE THIRD OF MARCH 2021")  # fmt: skip
    assert dates.format_date(datetime.date(1999, 12, 31), "dd_mon_yy", rng) == "31-Dec-99"
    assert dates.format_date(datetime.date(2004, 4, 3), "dmy_dots", random.Random(1)) in (
        "3.4.2004", "03.04.2004")  # fmt: skip


def test_every_format_parses_back_in_every_case():
    rng = random.Random(7)
    first = datetime.date(dates.MIN_YEAR, 1, 1).toordinal()
    last = datetime.date(dates.MAX_YEAR, 12, 31).toordinal()
    days = [datetime.date.fromordinal(rng.randint(first, last)) for _ in range(150)]
    days += [datetime.date(1950, 1, 1), datetime.date(2049, 12, 31), datetime.date(2000, 2, 29)]
    checked = 0
    for day in days:
        for name in dates.DATE_FORMATS:
            for case in ("as_is", "lower", "upper"):
                assert parse(dates.format_date(day, name, rng, case), name) == day
                checked += 1
    assert checked == 153 * 14 * 3


def test_generated_pairs_parse_back_and_targets_are_iso():
    triples = dates.date_pairs("test", seed=5, with_formats=True)
    assert len(triples) == 1000
    for source, target, name in triples:
        assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", target)
        day = datetime.date.fromisoformat(target)
        assert dates.MIN_YEAR <= day.year <= dates.MAX_YEAR
        assert parse(source, name) == day
    names = {name for _, _, name in triples}
    assert names == set(dates.DATE_FORMATS)
    assert any(s.isupper() for s, _, _ in triples) and any(s.islower() for s, _, _ in triples)


def test_determinism_and_seeds():
    first = builtin_pairs("dates", split="train", size=500, seed=0)
    assert first == builtin_pairs("dates", split="train", size=500, seed=0)
    other = builtin_pairs("dates", split="train", size=500, seed=1)
    assert len(set(first) & set(other)) < 25
    # A larger sample with the same seed starts with the smaller one.
    assert builtin_pairs("dates", split="train", size=600, seed=0)[:500] == first


def test_default_sizes_and_registry():
    assert set(BUILTIN_DATASETS) == {"dates"}
    assert dates.DEFAULT_SIZES == {"train": 20_000, "valid": 1_000, "test": 1_000}
    assert len(builtin_pairs("dates", split="valid")) == 1000
    with pytest.raises(ValueError, match="unknown built-in"):
        builtin_pairs("numbers")
    with pytest.raises(ValueError, match="split"):
        builtin_pairs("dates", split="dev")


def test_splits_partition_the_calendar():
    days = {split: set(dates.split_days(split)) for split in dates.SPLITS}
    total = sum(len(d) for d in days.values())
    assert total == (datetime.date(2049, 12, 31) - datetime.date(1950, 1, 1)).days + 1 == 36525
    assert not (days["train"] & days["valid"] or days["train"] & days["test"]
                or days["valid"] & days["test"])  # fmt: skip
    assert 0.78 < len(days["train"]) / total < 0.82
    assert 0.09 < len(days["test"]) / total < 0.11


def test_sampled_splits_never_overlap_in_dates_or_strings():
    train = builtin_pairs("dates", split="train", seed=0)
    valid = builtin_pairs("dates", split="valid", seed=1)  # other seeds: still disjoint
    test = builtin_pairs("dates", split="test", seed=2)
    assert len(train) == 20_000
    for a, b in ((train, valid), (train, test), (valid, test)):
        assert not {t for _, t in a} & {t for _, t in b}
        assert not {s for s, _ in a} & {s for s, _ in b}
    for split in (train, valid, test):
        assert len({s for s, _ in split}) == len(split)  # unique sources within a split
