"""All decoding options in one value: command line -> Translator -> `decode`, and comparisons."""

import dataclasses
from typing import Any

from keras_nmt.option_fields import check_options, flag_of, option, option_fields

# The options of the decoding loop itself, which every strategy reads besides its own.
COMMON_OPTIONS = (
    "max_length", "max_length_a", "max_length_b", "return_attention", "trim", "batch_cache"
)
DEFAULT_MAX_LENGTH = 100
# Per-sentence length limit ``ceil(a * source_len + b)``: generous for translation (targets rarely
# exceed 1.5x the source) and for spelling correction (target length ~ source length).
DEFAULT_MAX_LENGTH_A = 1.5
DEFAULT_MAX_LENGTH_B = 10.0
# GNMT alpha (Wu et al. 2016, §7). 0 ranks beams by their plain sum of log-probabilities; the
# published BLEU figures (docs/results) are decoded with it.
DEFAULT_LENGTH_PENALTY = 0.0
# The widest beam a translator serves (each size is a traced function; an export keeps them all).
DEFAULT_MAX_BEAM_SIZE = 8
# A sampling temperature below float32's smallest normal number samples as 0 does, the arg-max:
# in float32 such a temperature is 0 or loses its precision, and the logits divided by it
# are NaN (both engines would give a hypothesis of padding, or nothing).
SMALLEST_TEMPERATURE = 1.1754944e-38


@dataclasses.dataclass(frozen=True)
class DecodingOptions:
    """A decoding strategy and its options, with the one set of defaults of the project.

    The same value travels from the command line (each ``option`` field is a flag, its help
    text beside it) through ``Translator.translate_batch`` (and the SavedModel-backed
    translator) to ``decode``, whose docstring says what each option means; a comparison preset
    lists the decodings it scores. ``strategy=None`` chooses from ``beam_size``: beam search
    when it is above 1, else greedy decoding. ``to_dict()`` gives plain JSON-ready values
    (``DecodingOptions(**values)`` reads them back); ``options()`` the keyword arguments of the
    chosen strategy only.

    Example:
        >>> DecodingOptions(beam_size=4, length_penalty=0.6).chosen_strategy
        'beam'
    """

    strategy: str | None = option(None, "decoding strategy: greedy, beam, sample or another "
                                  "entry of keras_nmt.decoding.strategies.STRATEGIES (default: "
                                  "beam when --beam-size is above 1, else greedy); sampling "
                                  "needs a run folder or a CTranslate2 export", metavar="NAME")
    max_length: int | None = option(None, "the most tokens per hypothesis", at_least=1)
    max_length_a: float = option(DEFAULT_MAX_LENGTH_A, "a of ceil(a * source_len + b)",
                                 at_least=0)
    max_length_b: float = option(DEFAULT_MAX_LENGTH_B, "b of ceil(a * source_len + b)")
    return_attention: bool = False
    trim: bool = True
    batch_cache: bool = True
    beam_size: int = option(1, "1: greedy decoding; more: beam search width, at most "
                            f"{DEFAULT_MAX_BEAM_SIZE} for a run folder and at most the "
                            "export's --max-beam-size for a SavedModel", at_least=1)
    n_best: int | None = option(1, "translations printed per sentence, at most --beam-size, "
                                "with rank and score", at_least=1)
    normalization: str = option("gnmt", "beam score normalization",
                                choices=("none", "average", "gnmt"))
    length_penalty: float = option(DEFAULT_LENGTH_PENALTY, "GNMT length penalty alpha of beam "
                                   "search, >= 0; 0 ranks beams by their sum of "
                                   "log-probabilities (Wu et al. 2016 use 0.6-0.7)", at_least=0)
    coverage_penalty: float = option(0.0, "GNMT coverage penalty beta", at_least=0)
    temperature: float = option(1.0, "sampling temperature; 0 is arg-max", at_least=0)
    top_k: int | None = option(None, "sample among the k most probable tokens; 0: off",
                               at_least=0)
    top_p: float | None = option(None, "nucleus sampling mass in (0, 1]; 1: off", above=0,
                                 at_most=1)
    seed: int | None = option(0, "sampling seed", at_least=0)

    def __post_init__(self):
        check_options(self)
        if self.strategy is not None and self.strategy not in _strategies():
            flag = flag_of(next(f for f in option_fields(DecodingOptions) if f.name == "strategy"))
            raise ValueError(f"{flag} {self.strategy}: must be one of "
                             f"{', '.join(_strategies())}")
        # The one normalization of the sampling filters: 0 top-k and a top-p of 1 filter nothing.
        if self.top_k == 0:
            object.__setattr__(self, "top_k", None)
        if self.top_p == 1:
            object.__setattr__(self, "top_p", None)

    @property
    def chosen_strategy(self) -> str:
        """``strategy``, or the one ``beam_size`` chooses when it is ``None``."""
        if self.strategy is not None:
            return self.strategy
        return "beam" if self.beam_size > 1 else "greedy"

    def options(self) -> dict[str, Any]:
        """Keyword arguments of `decode` for the chosen strategy (the options it reads)."""
        return {name: getattr(self, name) for name in _strategies()[self.chosen_strategy].options}

    def to_dict(self) -> dict[str, Any]:
        """Every field as a plain python value."""
        return dataclasses.asdict(self)

    def replace(self, **changes) -> "DecodingOptions":
        """A copy with some fields changed."""
        return dataclasses.replace(self, **changes)


def _strategies():
    """The strategy table, read when a value is checked rather than when this module is
    imported: the table imports the step functions and so Keras, and the command line builds
    its flags from these fields before it loads a backend (`--help` loads none)."""
    from keras_nmt.decoding.strategies import STRATEGIES  # noqa: PLC0415  (see above)

    return STRATEGIES


GREEDY = DecodingOptions()
