"""Glossaries and do-not-translate terms: source terms whose translation is given.

A glossary maps source terms to the target terms a translation must use (`{"perro": "hound"}`);
a term mapped to itself is not translated (`{"Keras": "Keras"}`). It works around the model,
not inside its decoding loop (`docs/serving.md` says why, `docs/results/glossary.md` measures
it): each term found in a sentence (whole words, any case, the longest first) is looked up in the
greedy translation's word alignment (`word_alignment`: the target words the model attended the
term's source words from), and those target words are replaced by the required term; a term
already in the translation is left as it is, and one the attention points nowhere is added
where the nearest aligned word is.

Example:
    >>> glossary = Glossary({"perro": "hound"})
    >>> [match.target for match in glossary.find("El perro duerme.")]
    ['hound']
"""

import dataclasses
import re

from keras_nmt.workshop.translators.word_alignment import word_alignment

# What one glossary may hold (a request's or a file's).
MAX_TERMS = 1000
MAX_TERM_CHARS = 100


class GlossaryError(ValueError):
    """A glossary that cannot be used: the message names the entry (and file and line)."""


@dataclasses.dataclass(frozen=True)
class Match:
    """One term found in a sentence: its character span and the required target term."""

    start: int
    end: int
    target: str


class Glossary:
    """Source term -> target term (see the module).

    Args:
        entries: a dict, or `(source, target)` pairs; `where(i)` names entry `i` in errors.

    Raises:
        GlossaryError: no entries, more than `MAX_TERMS`, a term empty, longer than
            `MAX_TERM_CHARS` or holding a line break or tab, a source term given twice.
    """

    def __init__(self, entries, where=lambda i: f"entry {i + 1}"):
        pairs = list(entries.items()) if isinstance(entries, dict) else list(entries)
        if not pairs:
            raise GlossaryError("the glossary is empty")
        if len(pairs) > MAX_TERMS:
            raise GlossaryError(f"the glossary has {len(pairs)} terms; at most {MAX_TERMS}")
        self.terms = {}
        for i, (source, target) in enumerate(pairs):
            for side, term in (("source", source), ("target", target)):
                if not isinstance(term, str) or not term.strip():
                    raise GlossaryError(f"{where(i)}: the {side} term is empty")
                if len(term) > MAX_TERM_CHARS:
                    raise GlossaryError(f"{where(i)}: the {side} term has {len(term)} "
                                        f"characters; at most {MAX_TERM_CHARS}")
                if any(c in term for c in "\t\n\r"):
                    raise GlossaryError(f"{where(i)}: the {side} term holds a tab or line "
                                        "break")
            key = " ".join(source.split()).lower()
            if key in self.terms:
                raise GlossaryError(f"{where(i)}: the source term {source!r} is given twice")
            self.terms[key] = " ".join(target.split())
        # Longest first, so that "dar un paseo" wins over "paseo"; words are matched whole.
        alternatives = sorted(self.terms, key=len, reverse=True)
        self._pattern = re.compile(
            r"(?<!\w)(" + "|".join(r"\s+".join(map(re.escape, t.split())) for t in alternatives)
            + r")(?!\w)", re.IGNORECASE)

    @classmethod
    def read(cls, path):
        """A glossary file: one term a line, `SOURCE<TAB>TARGET`, or `TERM` alone for a term
        not to translate; blank lines and lines starting with `#` are skipped (UTF-8)."""
        try:
            text = open(path, encoding="utf-8-sig").read()  # noqa: SIM115 (read whole)
        except UnicodeDecodeError as error:
            raise GlossaryError(f"{path}: not UTF-8 text (byte {error.start})") from None
        entries, lines = [], []
        for number, line in enumerate(text.split("\n"), 1):
            line = line.rstrip("\r")
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            columns = line.split("\t")
            if len(columns) > 2:
                raise GlossaryError(f"{path}:{number}: {len(columns)} columns; give SOURCE<TAB>"
                                    "TARGET, or a term alone not to translate it")
            entries.append((columns[0], columns[-1]))
            lines.append(number)
        if not entries:
            raise GlossaryError(f"{path}: no terms")
        return cls(entries, where=lambda i: f"{path}:{lines[i]}")

    def find(self, text):
        """The terms in `text`, in order, not overlapping (`Match`es)."""
        return [Match(m.start(), m.end(), self.terms[" ".join(m.group(0).split()).lower()])
                for m in self._pattern.finditer(text)]

    def apply(self, text, result):
        """`result`'s translation of `text` (a `TranslationResult` of greedy decoding with
        attention) with every term of `text` in it."""
        matches = self.find(text)
        if not matches:
            return result.text
        alignment = word_alignment(result)
        words = list(alignment["target_words"])
        if not words:
            return " ".join(m.target for m in matches)
        source_spans = _word_spans(text, alignment["source_words"])
        replace = {}  # first target word of a span -> (last word, term)
        extra = []  # (target position, term) of terms the attention points nowhere
        for match in matches:
            if _contains(" ".join(words), match.target):
                continue
            covered = {i for i, (start, end) in enumerate(source_spans)
                       if start < match.end and end > match.start}
            linked = sorted(j for i, j in alignment["links"] if i in covered)
            if linked and not any(j in taken for j in linked for taken in _taken(replace)):
                replace[linked[0]] = (linked[-1], match.target)
            else:
                nearest = min(covered, default=0)
                before = [j for i, j in alignment["links"] if i <= nearest]
                extra.append((max(before) + 1 if before else 0, match.target))
        out, j = [], 0
        while j < len(words):
            for position, term in extra:
                if position == j:
                    out.append(term)
            if j in replace:  # the words' outer punctuation stays: "perro." -> "hound."
                last, term = replace[j]
                lead = re.match(r"\W*", words[j])[0]
                trail = re.search(r"\W*$", words[last])[0]
                out.append(lead + term + trail)
                j = last + 1
            else:
                out.append(words[j])
                j += 1
        out += [term for position, term in extra if position >= len(words)]
        return " ".join(out)


def _taken(replace):
    return [range(first, last + 1) for first, (last, _) in replace.items()]


def _contains(text, term):
    return re.search(r"(?<!\w)" + re.escape(term) + r"(?!\w)", text, re.IGNORECASE) is not None


def _word_spans(text, words):
    """Character spans of the model's source `words` in `text` (searched in order, case and
    normalization aside); a word not found gets the span after the previous one."""
    spans, position, lowered = [], 0, text.lower()
    for word in words:
        at = lowered.find(word.lower(), position)
        if at < 0:
            spans.append((position, position))
            continue
        spans.append((at, at + len(word)))
        position = at + len(word)
    return spans
