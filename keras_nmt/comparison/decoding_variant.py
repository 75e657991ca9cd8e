"""`DecodingVariant`: one way of decoding a trained model (greedy, or beam search)."""

import dataclasses


@dataclasses.dataclass(frozen=True)
class DecodingVariant:
    """How the evaluation sentences are translated.

    Attributes:
        name: shown in the table's ``decoding`` column, e.g. ``greedy``, ``beam 4``,
            ``beam 4, alpha 0.6``.
        beam_size: 1 is greedy decoding; more is beam search (`Translator.translate_batch`).
        length_penalty: GNMT length penalty ``alpha`` of beam search (Wu et al. 2016, §7);
            0 ranks hypotheses by their plain sum of log-probabilities.
    """

    name: str = "greedy"
    beam_size: int = 1
    length_penalty: float = 0.0

    @classmethod
    def beam(cls, beam_size, length_penalty=0.0):
        """``DecodingVariant.beam(4, 0.6)`` -> ``beam 4, alpha 0.6``; ``beam(1)`` is greedy."""
        if beam_size == 1:
            return cls()
        name = f"beam {beam_size}" + (f", alpha {length_penalty:g}" if length_penalty else "")
        return cls(name, beam_size, float(length_penalty))


GREEDY = DecodingVariant()
