"""Scores of a spelling corrector: error rates before and after, and what it broke or invented.

Plain Python, no TensorFlow. Words are whitespace-separated, as for WER
(`keras_nmt.metrics.edit_distance.words`).

Definitions used by `spelling_report` (all counts summed over the corpus):

- **aligned word**: each clean sentence's words are aligned to another sentence's words with a
  Levenshtein word alignment that has the fewest edits and, among those, the most equal words
  (so "the big dog" -> "the dog !" keeps "the" and "dog" aligned and deletes "big", rather than
  substituting twice); clean word ``i`` is aligned to one word of the other sentence or to
  nothing (deleted).
- **correct word**: a clean word whose aligned *noisy* word is equal to it (the noise did not
  touch it). The noise generator never changes the word count, so this is the same as "same
  word at the same index".
- **changed-correct rate**: the share of correct words whose aligned *corrected* word is not
  equal to the clean word any more (the corrector broke a word that was right).
- **wrong word** / **fixed rate**: a clean word whose aligned noisy word differs (or is missing);
  the fixed rate is the share of those whose aligned corrected word equals the clean word.
- **hallucination rate**: the share of the corrected output's words that are not in the clean
  training vocabulary, after `vocabulary_key` (surrounding punctuation stripped, case folded);
  words that are only punctuation are not counted. The same share in the *noisy input*
  (``noisy_oov_rate``) is its baseline: a corrector that copies a misspelling it cannot fix
  counts that word too, so only a rate above the input's means the corrector invents words.
"""

import string
from collections.abc import Iterable, Sequence

from keras_nmt.metrics import corpus_cer, corpus_wer, edit_distance_table
from keras_nmt.plural import plural

# Stripped from both ends of a word before looking it up in the vocabulary.
_PUNCTUATION = string.punctuation + "¿¡«»“”‘’…–—"


def vocabulary_key(word):
    """The form a word is looked up in: surrounding punctuation stripped, case folded."""
    return word.strip(_PUNCTUATION).casefold()


def clean_vocabulary(sentences: Iterable[str]):
    """The `vocabulary_key` forms of the words of ``sentences`` (punctuation-only ones left out)."""
    vocabulary = set()
    for sentence in sentences:
        for word in sentence.split():
            key = vocabulary_key(word)
            if key:
                vocabulary.add(key)
    return vocabulary


def align_words(reference: Sequence[str], hypothesis: Sequence[str]):
    """For each reference word, the hypothesis word aligned to it, or ``None`` if deleted.

    Args:
        reference: words of the clean sentence.
        hypothesis: words of the noisy or corrected sentence.

    Returns:
        A list as long as ``reference``.

    Example:
        >>> align_words(["the", "cat", "sat"], ["the", "sat"])
        ['the', None, 'sat']
    """
    # Integer costs K for an insertion or deletion and K + 1 for a substitution, with K larger
    # than any number of substitutions: the cheapest alignment has the fewest edits first and,
    # among those, the fewest substitutions, which is the most equal words.
    unit = len(reference) + len(hypothesis) + 1
    costs = dict(substitution_cost=unit + 1, insertion_cost=unit, deletion_cost=unit)
    table = edit_distance_table(reference, hypothesis, **costs)
    aligned = [None] * len(reference)
    i, j = len(reference), len(hypothesis)
    while i > 0 or j > 0:
        here = table[i][j]
        if i > 0 and j > 0:
            cost = 0 if reference[i - 1] == hypothesis[j - 1] else unit + 1
            if here == table[i - 1][j - 1] + cost:
                aligned[i - 1] = hypothesis[j - 1]
                i, j = i - 1, j - 1
                continue
        if i > 0 and here == table[i - 1][j] + unit:
            i -= 1
        else:
            j -= 1
    return aligned


def spelling_report(noisy, corrected, clean, vocabulary):
    """CER/WER before and after correction, changed-correct, fixed and hallucination rates.

    Args:
        noisy: the corrector's inputs, one string per sentence.
        corrected: its outputs.
        clean: the clean sentences (references).
        vocabulary: a set from `clean_vocabulary` of the clean training sentences.

    Returns:
        A dict of plain numbers: ``sentences``, ``noisy_cer``, ``noisy_wer``, ``corrected_cer``,
        ``corrected_wer``, ``noisy_exact``, ``corrected_exact`` (shares of sentences equal to
        the clean one), ``correct_words``, ``changed_correct_words``, ``changed_correct_rate``,
        ``wrong_words``, ``fixed_words``, ``fixed_rate``, ``output_words``,
        ``hallucinated_words``, ``hallucination_rate``, ``noisy_words``, ``noisy_oov_words``,
        ``noisy_oov_rate`` (see the module docstring; a rate with an empty denominator is 0).
    """
    if not len(noisy) == len(corrected) == len(clean):
        raise ValueError(f"{len(noisy)} noisy, {len(corrected)} corrected, {len(clean)} clean")
    correct = changed = wrong = fixed = 0
    for noisy_text, corrected_text, clean_text in zip(noisy, corrected, clean, strict=True):
        reference = clean_text.split()
        before = align_words(reference, noisy_text.split())
        after = align_words(reference, corrected_text.split())
        for word, noisy_word, corrected_word in zip(reference, before, after, strict=True):
            if noisy_word == word:
                correct += 1
                changed += corrected_word != word
            else:
                wrong += 1
                fixed += corrected_word == word
    noisy_words, noisy_oov = _out_of_vocabulary(noisy, vocabulary)
    output_words, hallucinated = _out_of_vocabulary(corrected, vocabulary)
    count = max(len(clean), 1)
    return {
        "sentences": len(clean),
        "noisy_cer": corpus_cer(list(noisy), list(clean)).rate,
        "noisy_wer": corpus_wer(list(noisy), list(clean)).rate,
        "corrected_cer": corpus_cer(list(corrected), list(clean)).rate,
        "corrected_wer": corpus_wer(list(corrected), list(clean)).rate,
        "noisy_exact": sum(n == c for n, c in zip(noisy, clean, strict=True)) / count,
        "corrected_exact": sum(h == c for h, c in zip(corrected, clean, strict=True)) / count,
        "correct_words": correct,
        "changed_correct_words": changed,
        "changed_correct_rate": _rate(changed, correct),
        "wrong_words": wrong,
        "fixed_words": fixed,
        "fixed_rate": _rate(fixed, wrong),
        "output_words": output_words,
        "hallucinated_words": hallucinated,
        "hallucination_rate": _rate(hallucinated, output_words),
        "noisy_words": noisy_words,
        "noisy_oov_words": noisy_oov,
        "noisy_oov_rate": _rate(noisy_oov, noisy_words),
    }


def _rate(count, total):
    """``count / total``, or 0 for an empty ``total``."""
    return count / total if total else 0.0


def _out_of_vocabulary(texts, vocabulary):
    """``(words, words not in vocabulary)`` over ``texts``, punctuation-only words left out."""
    keys = [key for text in texts for key in map(vocabulary_key, text.split()) if key]
    return len(keys), sum(key not in vocabulary for key in keys)


def format_report(report):
    """A few human-readable lines for a `spelling_report` dict."""
    return "\n".join(
        [
            f"test ({plural(report['sentences'], 'sentence')})      CER      WER   exact",
            f"  noisy input           {report['noisy_cer']:7.4f}  {report['noisy_wer']:7.4f}"
            f"  {report['noisy_exact']:6.1%}",
            f"  corrected output      {report['corrected_cer']:7.4f}  "
            f"{report['corrected_wer']:7.4f}  {report['corrected_exact']:6.1%}",
            f"  correct words changed {report['changed_correct_rate']:7.2%} "
            f"({report['changed_correct_words']} of {report['correct_words']})",
            f"  wrong words fixed     {report['fixed_rate']:7.2%} "
            f"({report['fixed_words']} of {report['wrong_words']})",
            f"  hallucinated words    {report['hallucination_rate']:7.2%} "
            f"({report['hallucinated_words']} of {report['output_words']} output words; "
            f"noisy input {report['noisy_oov_rate']:.2%})",
        ]
    )
