"""What a run's data is and what it looks like: file fingerprints, a likely header line, and a
profile of each side that any later file is measured against before a model sees it.

A model trained on Spanish -> English gives nonsense, without an error, when it is fed English,
the columns of a file in the other order, another language, or a header line as a sentence. Such
a file differs from the training data in ways that are cheap to measure without the model:
most of its words, or some of its characters, never occurred on the side each column feeds.
`profile_pairs` keeps the training data's words (digits folded to 0, so that years and dates
count as seen) and characters per side; `implausibility` measures a file's pairs against them:

- **reversed**: its words are far more often unknown as they are than with the columns swapped;
- **another language or script**: most of a side's words, or more than a few of its
  characters, never occurred on that side in training.

A run stores its profile with its fingerprints (`data.json` in the run folder); exports carry
it, so every model format is checked alike.

Example:
    >>> profile = profile_pairs([("hola mundo", "hello world"), ("buenos días", "good morning")])
    >>> implausibility([("hello world", "hola mundo")], profile, "test.tsv")[:32]
    'test.tsv looks reversed: 100% of'
    >>> looks_like_header(["source", "target"]), looks_like_header(["Go.", "Ve."])
    (True, False)
"""

import re
import unicodedata
from collections import Counter
from pathlib import Path

from keras_nmt.saved_files import sha256_of

# The most frequent words kept per side (a few hundred kilobytes of JSON at most).
MAX_WORDS = 20_000
# Pairs measured at most (from the start of the file).
MAX_MEASURED = 2_000
# A side is "another language or script" above these unknown rates (words, characters), and
# "reversed" when swapping the columns lowers the mean unknown word rate by more than
# REVERSED_MARGIN. Same-language test sets measure 1-15% unknown words, 0-0.5% characters.
FOREIGN_WORDS = 0.5
FOREIGN_CHARACTERS = 0.05
REVERSED_MARGIN = 0.2
# Words a header field is made of ("source", "tgt_text", "English", "es"...).
HEADER_WORDS = frozenset("""
source target src tgt trg text texts sentence sentences translation translations input output
lang language original reference references hypothesis label id sequence column side from to
english spanish french german italian portuguese dutch russian chinese japanese arabic other
en es fr de it pt nl ru zh ja ar eng spa fra fre deu ger ita por nld rus zho jpn ara
""".split())
_WORD = re.compile(r"\w+")
_DIGIT = re.compile(r"\d")
_HEADER_PIECE = re.compile(r"[_\-\s./]+")


def file_fingerprint(path):
    """``{"path", "size", "sha256"}`` of a file: what a run records of each data file it read."""
    path = Path(path)
    return {"path": str(path.resolve()), "size": path.stat().st_size, "sha256": sha256_of(path)}


def changed_file(recorded):
    """How the file of a `file_fingerprint` differs from it now, or None when it is the same."""
    path = Path(recorded["path"])
    if not path.is_file():
        return "it is gone"
    now = file_fingerprint(path)
    if now["size"] != recorded["size"]:
        return f"{recorded['size']:,} bytes then, {now['size']:,} now"
    if now["sha256"] != recorded["sha256"]:
        return "same size, other content"
    return None


def looks_like_header(columns):
    """Whether the fields of a first line read as column names ("source", "en", "tgt_text")."""
    fields = [field.strip().lower() for field in columns]
    if not fields or not all(fields):
        return False
    return all(
        all(piece in HEADER_WORDS for piece in _HEADER_PIECE.split(field) if piece)
        for field in fields
    )


def _words(text):
    return _WORD.findall(_DIGIT.sub("0", unicodedata.normalize("NFKC", text).lower()))


def _characters(text):
    return [c for c in unicodedata.normalize("NFKC", text).lower() if not c.isspace()]


def _side(texts):
    words, characters = Counter(), Counter()
    for text in texts:
        words.update(_words(text))
        characters.update(_characters(text))
    return {"words": [word for word, _ in words.most_common(MAX_WORDS)],
            "characters": "".join(sorted(characters))}


def profile_pairs(pairs):
    """``{"source": {"words", "characters"}, "target": ...}`` of training pairs."""
    return {"source": _side(s for s, _ in pairs), "target": _side(t for _, t in pairs)}


def _unknown(texts, side, split):
    known = set(side["words"]) if split is _words else set(side["characters"])
    items = [item for text in texts for item in split(text)]
    return sum(item not in known for item in items) / len(items) if items else 0.0


def measure(pairs, profile):
    """Unknown rates of `pairs` (at most `MAX_MEASURED`) against a `profile_pairs` profile.

    Returns:
        A dict of fractions: ``source_words``, ``target_words`` (each column's words unknown to
        the side it feeds), ``swapped_source_words``, ``swapped_target_words`` (the same with the
        columns swapped), ``source_characters``, ``target_characters``.
    """
    pairs = list(pairs)[:MAX_MEASURED]
    sources, targets = [s for s, _ in pairs], [t for _, t in pairs]
    source, target = profile["source"], profile["target"]
    return {
        "source_words": _unknown(sources, source, _words),
        "target_words": _unknown(targets, target, _words),
        "swapped_source_words": _unknown(targets, source, _words),
        "swapped_target_words": _unknown(sources, target, _words),
        "source_characters": _unknown(sources, source, _characters),
        "target_characters": _unknown(targets, target, _characters),
    }


def implausibility(pairs, profile, name, sides=("source", "target")):
    """Why `pairs` do not look like the data of `profile`, in one sentence, or None.

    Args:
        pairs: ``(source, target)`` pairs as they would be fed (targets may be ``""`` when only
            sources are measured, with ``sides=("source",)``).
        profile: a `profile_pairs` profile.
        name: the file, for the message.
        sides: the sides to judge.
    """
    rates = measure(pairs, profile)
    if sides == ("source", "target"):
        as_is = (rates["source_words"] + rates["target_words"]) / 2
        swapped = (rates["swapped_source_words"] + rates["swapped_target_words"]) / 2
        if swapped + REVERSED_MARGIN < as_is:
            return (f"{name} looks reversed: {as_is:.0%} of its words are unknown to the side "
                    f"their column feeds, {swapped:.0%} with the two columns swapped")
    elif rates["swapped_target_words"] + REVERSED_MARGIN < rates["source_words"]:
        return (f"{name} reads like the model's target language, not its source: "
                f"{rates['source_words']:.0%} of its words are unknown to the source side, "
                f"{rates['swapped_target_words']:.0%} to the target side")
    for side in sides:
        words, characters = rates[f"{side}_words"], rates[f"{side}_characters"]
        if words > FOREIGN_WORDS or characters > FOREIGN_CHARACTERS:
            return (f"{name} does not look like the model's {side} language: {words:.0%} of its "
                    f"{side} words and {characters:.1%} of its characters never occurred on that "
                    "side in training (another language or script?)")
    return None
