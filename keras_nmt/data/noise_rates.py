"""`NoiseRates`: how often each kind of typo happens (see `keras_nmt.data.noise`)."""

import dataclasses

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
