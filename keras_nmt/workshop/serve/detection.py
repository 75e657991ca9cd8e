"""Which language a text is in, among the languages a server serves (`POST /detect`,
`source=auto`).

With `lingua-language-detector` (Pemistahl's Lingua, ported from its Rust version): its
n-gram models ship inside its wheel (nothing is downloaded at run time), it is maintained, and
it can be restricted to a set of languages, so that a server serving Spanish and English
answers only "es" or "en" and spends no probability on languages it cannot translate. Why not
`langdetect`, which LibreTranslate uses: its last release is from 2021, it is published as a
source archive only, and it is random unless seeded (docs/serving.md).

Confidences are percentages (0-100) as LibreTranslate gives them: Lingua's relative confidence
of each language among the served ones, which sum to 100 for a text.

Example:
    >>> detector = Detector(["es", "en"])
    >>> detector.detect("¿Dónde está la biblioteca?")[0]
    {'confidence': 100.0, 'language': 'es'}
"""

from lingua import IsoCode639_1, LanguageDetectorBuilder


def _iso_code(code):
    """Lingua's `IsoCode639_1` of a served code (`pt-BR` is `pt`), or `None` if it has none."""
    try:
        return IsoCode639_1.from_str(code.split("-")[0].lower())
    except ValueError:
        return None


class Detector:
    """Language detection restricted to `codes` (served languages Lingua knows).

    Args:
        codes: the language codes served, as the API names them (`es`, `pt-BR`).
    """

    def __init__(self, codes):
        self.codes = {}  # Lingua's ISO code -> the served code(s) it stands for
        for code in codes:
            iso = _iso_code(code)
            if iso is not None:
                self.codes.setdefault(iso, []).append(code)
        self._detector = None
        if len(self.codes) >= 2:  # Lingua needs two languages to choose between
            self._detector = LanguageDetectorBuilder.from_iso_codes_639_1(
                *self.codes).with_preloaded_language_models().build()

    def detect(self, text):
        """The served languages of `text`, most likely first: `[{"confidence", "language"}]`
        (confidence 0-100); `[]` when no served language is known to Lingua."""
        if self._detector is None:
            return [{"confidence": 100.0, "language": code}
                    for codes in self.codes.values() for code in codes][:1]
        answer = []
        for value in self._detector.compute_language_confidence_values(text):
            for code in self.codes[value.language.iso_code_639_1]:
                answer.append({"confidence": round(100 * value.value, 1), "language": code})
        return answer

    def detect_many(self, texts):
        """`detect` of several texts as one answer: each language's mean confidence over the
        texts, weighted by their lengths (as LibreTranslate answers a list)."""
        totals, weight = {}, 0
        for text in texts:
            length = max(len(text), 1)
            weight += length
            for guess in self.detect(text):
                totals[guess["language"]] = totals.get(guess["language"], 0.0) + \
                    guess["confidence"] * length
        ranked = sorted(totals.items(), key=lambda item: -item[1])
        return [{"confidence": round(total / weight, 1), "language": code}
                for code, total in ranked]
