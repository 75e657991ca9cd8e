"""Seeded typing noise: clean text -> misspelled text, for spelling-correction pairs.

Pure Python (``random.Random``), no TensorFlow. `NoiseGenerator.corrupt` keeps every white-space
run as it is and works word by word (a word is a run of non-space characters):

1. with probability ``word_rate`` the word is *touched*, otherwise copied unchanged;
2. in a touched word, with the per-word rates of `NoiseRates`: its accents are dropped
   (``accent``), then, walking through its characters left to right, at each letter the
   per-site operations are tried in this order, the first that fires consuming the site:
   ``transposition`` (swap with the next, different letter), ``dropped_double`` (one of two
   equal letters), ``deletion``, then ``substitution`` by a neighbouring QWERTY key, after which
   the typed letter may be ``doubling``-typed twice and an ``insertion`` of a neighbouring key of
   the original letter may follow; finally the first letter's ``case`` may be flipped.

Only letters are edited: digits and punctuation are kept, a word never loses its last letter
and no space is ever inserted or removed, so the noisy sentence has exactly the words of the
clean one, position by position (`keras_nmt.workshop.spelling.report` relies on alignment anyway).

Example:
    >>> generator = NoiseGenerator(NoiseRates.only(transposition=1.0), word_rate=1.0, seed=0)
    >>> generator.corrupt("the cat")
    'hte act'
"""

import dataclasses
import random
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable

# Per-site operations applied while walking through a word's characters, in the order they are
# tried at each site; per-word operations are applied to the whole word.
CHARACTER_OPERATIONS = (
    "transposition",
    "dropped_double",
    "deletion",
    "substitution",
    "insertion",
    "doubling",
)
WORD_OPERATIONS = ("accent", "case")


@dataclasses.dataclass(frozen=True)
class NoiseRates:
    """Probabilities of each typo, at each site where it can happen, inside a touched word.

    A word (a run of non-space characters) is touched with probability
    ``NoiseGenerator.word_rate``; untouched words are copied as they are. Inside a touched word
    every rate is the probability that the operation fires at one *site*, a place where it can
    apply (the counts in the tests divide by exactly these sites):

    Attributes:
        deletion: per letter: the letter is left out (never the word's last remaining letter,
            so a word never disappears and the word count never changes).
        insertion: per letter with QWERTY neighbours: one of them is typed right after it (a
            "fat finger").
        substitution: per letter with QWERTY neighbours: a neighbouring key replaces it (case
            kept: ``"T" -> "R"``).
        transposition: per pair of adjacent, different letters: they are swapped (``"the" ->
            "teh"``).
        doubling: per letter: it is typed twice (``"later" -> "latter"``).
        dropped_double: per pair of equal adjacent letters: one of them is left out
            (``"letter" -> "leter"``).
        case: per word holding a letter: the case of its first letter is flipped (``"Tom" ->
            "tom"``, ``"i" -> "I"``).
        accent: per word holding an accented letter: all its accents are dropped (``"café" ->
            "cafe"``, ``"niño" -> "nino"``; NFD decomposition without the combining marks).
    """

    deletion: float = 0.04
    insertion: float = 0.03
    substitution: float = 0.05
    transposition: float = 0.04
    doubling: float = 0.02
    dropped_double: float = 0.3
    case: float = 0.05
    accent: float = 0.5

    def __post_init__(self):
        for field in dataclasses.fields(self):
            value = getattr(self, field.name)
            if not 0.0 <= value <= 1.0:
                raise ValueError(f"rate {field.name} must be in [0, 1], got {value!r}")

    @classmethod
    def parse(cls, text):
        """Rates from ``"deletion=0.1,case=0"`` (unnamed ones keep their defaults).

        Raises:
            ValueError: an unknown name or a malformed item.
        """
        values = {}
        known = {field.name for field in dataclasses.fields(cls)}
        for item in filter(None, (part.strip() for part in text.split(","))):
            name, sep, value = item.partition("=")
            name = name.strip().replace("-", "_")
            if not sep or name not in known:
                raise ValueError(
                    f"bad noise rate {item!r}: expected NAME=VALUE with NAME one of "
                    f"{', '.join(sorted(known))}"
                )
            values[name] = float(value)
        return cls(**values)

    @classmethod
    def only(cls, **rates):
        """Rates with every operation off except the ones given (tests, ablations)."""
        zero = {field.name: 0.0 for field in dataclasses.fields(cls)}
        return cls(**{**zero, **rates})

    def scaled(self, factor):
        """Every rate multiplied by ``factor`` (capped at 1)."""
        return NoiseRates(
            **{k: min(1.0, v * factor) for k, v in dataclasses.asdict(self).items()}
        )


# A US QWERTY keyboard: each row is shifted right of the one above by these fractions of a key
# width, and two keys are neighbours when they touch: same row and next to each other, or on
# adjacent rows less than one key width apart horizontally.
QWERTY_ROWS = ("qwertyuiop", "asdfghjkl", "zxcvbnm")
QWERTY_ROW_OFFSETS = (0.0, 0.25, 0.75)


def _qwerty_neighbours():
    positions = {
        key: (row, column + QWERTY_ROW_OFFSETS[row])
        for row, keys in enumerate(QWERTY_ROWS)
        for column, key in enumerate(keys)
    }
    neighbours = {}
    for key, (row, x) in positions.items():
        neighbours[key] = "".join(
            other
            for other, (other_row, other_x) in positions.items()
            if other != key
            and (
                (other_row == row and abs(other_x - x) == 1)
                or (abs(other_row - row) == 1 and abs(other_x - x) < 1)
            )
        )
    return neighbours


# ``{"a": "qwsz", "s": "weadzx", ...}``: lower-case letter -> its neighbouring keys.
QWERTY_NEIGHBOURS = _qwerty_neighbours()
_SPACE = re.compile(r"(\s+)")


def strip_accents(text):
    """``text`` without combining marks: NFD, drop the marks, NFC (``"Bogotá" -> "Bogota"``)."""
    decomposed = unicodedata.normalize("NFD", text)
    kept = "".join(c for c in decomposed if not unicodedata.combining(c))
    return unicodedata.normalize("NFC", kept)


def neighbour_keys(letter):
    """The QWERTY neighbours of ``letter`` in its own case (``"G" -> "RTFHVB"``); ``""`` if none."""
    keys = QWERTY_NEIGHBOURS.get(letter.lower(), "")
    return keys.upper() if letter.isupper() else keys


def _flip_case(word):
    """``word`` with the case of its first letter flipped (unchanged if that changes its length)."""
    for index, char in enumerate(word):
        if char.isalpha():
            flipped = char.swapcase()
            if len(flipped) != 1 or flipped == char:
                return word
            return word[:index] + flipped + word[index + 1 :]
    return word


class NoiseGenerator:
    """Turns clean text into misspelled text the way people mistype (see the module docstring).

    Args:
        rates: a `NoiseRates`, or a dict of some of its fields (the others keep defaults).
        word_rate: probability that a word is touched at all.
        seed: seed of the generator's own ``random.Random``, used when `corrupt` gets no ``rng``.
    """

    def __init__(self, rates=None, word_rate=0.3, seed=0):
        if rates is None:
            rates = NoiseRates()
        elif isinstance(rates, dict):
            rates = NoiseRates(**rates)
        if not 0.0 <= word_rate <= 1.0:
            raise ValueError(f"word_rate must be in [0, 1], got {word_rate!r}")
        self.rates = rates
        self.word_rate = float(word_rate)
        self.seed = seed
        self.rng = random.Random(seed)

    def get_config(self):
        """The constructor arguments as plain values (for ``spelling.json``)."""
        return {
            "rates": dataclasses.asdict(self.rates),
            "word_rate": self.word_rate,
            "seed": self.seed,
        }

    def corrupt(self, text, rng=None):
        """``text`` with typing noise; ``rng`` (a ``random.Random``) defaults to the generator's."""
        return self.corrupt_with_ops(text, rng)[0]

    def corrupt_with_ops(self, text, rng=None, sites=None):
        """Like `corrupt`, also telling which operations fired where.

        Args:
            text: the clean text.
            rng: a ``random.Random``; default: the generator's own (seeded by ``seed``).
            sites: an optional ``collections.Counter`` that receives, per operation name, the
                number of sites where it could have fired, plus ``"word"`` (words seen) and
                ``"touched"`` (words touched); the rate tests divide by these.

        Returns:
            ``(noisy_text, ops)`` with ``ops`` a list of ``(word_index, operation)`` in the order
            they fired; ``word_index`` counts the words of ``text`` from 0.
        """
        rng = self.rng if rng is None else rng
        sites = Counter() if sites is None else sites
        ops = []
        pieces = _SPACE.split(text)
        word_index = 0
        for position in range(0, len(pieces), 2):  # even positions are words, odd white space
            word = pieces[position]
            if not word:
                continue
            sites["word"] += 1
            if rng.random() < self.word_rate:
                sites["touched"] += 1
                fired = []
                pieces[position] = self._corrupt_word(word, rng, fired, sites)
                ops.extend((word_index, name) for name in fired)
            word_index += 1
        return "".join(pieces), ops

    def _fires(self, name, rng, sites):
        """Counts one site of operation ``name`` and draws whether it fires."""
        sites[name] += 1
        rate = getattr(self.rates, name)
        return rate > 0.0 and rng.random() < rate

    def _corrupt_word(self, word, rng, fired, sites):
        if strip_accents(word) != word and self._fires("accent", rng, sites):
            word = strip_accents(word)
            fired.append("accent")
        out = []
        letters_left = sum(c.isalpha() for c in word)  # letters of `word` not yet walked past
        letters_out = 0
        i, n = 0, len(word)
        while i < n:
            char = word[i]
            if not char.isalpha():
                out.append(char)
                i += 1
                continue
            following = word[i + 1] if i + 1 < n else ""
            if following.isalpha() and following != char:
                if self._fires("transposition", rng, sites):
                    out += [following, char]
                    fired.append("transposition")
                    letters_left -= 2
                    letters_out += 2
                    i += 2
                    continue
            elif following == char:
                if self._fires("dropped_double", rng, sites):
                    out.append(char)
                    fired.append("dropped_double")
                    letters_left -= 2
                    letters_out += 1
                    i += 2
                    continue
            letters_left -= 1
            # A word keeps at least one letter, so the word count never changes.
            if letters_out + letters_left > 0 and self._fires("deletion", rng, sites):
                fired.append("deletion")
                i += 1
                continue
            keys = neighbour_keys(char)
            typed = char
            if keys and self._fires("substitution", rng, sites):
                typed = rng.choice(keys)
                fired.append("substitution")
            out.append(typed)
            if self._fires("doubling", rng, sites):
                out.append(typed)
                fired.append("doubling")
            if keys and self._fires("insertion", rng, sites):
                out.append(rng.choice(keys))
                fired.append("insertion")
            letters_out += 1
            i += 1
        word = "".join(out)
        if any(c.isalpha() for c in word) and self._fires("case", rng, sites):
            flipped = _flip_case(word)
            if flipped != word:
                word = flipped
                fired.append("case")
        return word


def noisy_pairs(clean_sentences: Iterable[str], seed=0, generator=None):
    """Fixed, seeded ``[(noisy, clean), ...]`` pairs (validation and test sets).

    Args:
        clean_sentences: the clean text, which is returned unaltered as the second element.
        seed: seed of the ``random.Random`` used for this call only, so the result depends on
            ``seed`` and the sentences alone, not on what the generator produced before.
        generator: a `NoiseGenerator` (default: ``NoiseGenerator()`` with default rates).

    Returns:
        A list of ``(noisy, clean)`` string pairs in the order of ``clean_sentences``.
    """
    generator = NoiseGenerator() if generator is None else generator
    rng = random.Random(seed)
    return [(generator.corrupt(clean, rng), clean) for clean in clean_sentences]
