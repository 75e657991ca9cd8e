"""A translation's confidence and its word alignment, from greedy decoding with attention.

**Confidence** is the mean log-probability of the produced tokens (`</s>` included): the
greedy score (their sum) divided by their number. 0 is certain; it falls as the model
hesitates. `docs/results/confidence.md` measures how it follows sentence chrF.

**Word alignment** from the attention the decoder returned at each step (`TranslationResult.
weights`, `(target tokens, source tokens)`; a Transformer's is its last layer's mean over heads):
tokens are grouped into the words they spell (SentencePiece pieces that start with `▁` start a
word; a character model's `" "` separates words; a word model's tokens are words), the weights
are summed over each pair of words, and each target word is linked to the source word it
attended to most (the argmax alignment of attention models, as in Bahdanau et al. 2015, Fig. 3;
Transformer attention aligns less well than a trained aligner: Garg et al. 2019).

Example:
    >>> result = TranslationResult(["the cat"], [-0.9], np.array(
    ...     [[0.1, 0.8, 0.1], [0.1, 0.1, 0.8], [0.2, 0.2, 0.6]], np.float32),
    ...     ["▁el", "▁ga", "to"], ["▁the", "▁cat", "</s>"])
    >>> round(confidence(result), 2)
    -0.3
    >>> word_alignment(result)
    {'source_words': ['el', 'gato'], 'target_words': ['the', 'cat'], 'links': [[1, 0], [1, 1]]}
"""

import numpy as np

from keras_nmt.inference.translation_result import TranslationResult  # noqa: F401 (example)

END = "</s>"


def confidence(result):
    """The mean token log-probability of `result`'s greedy translation (0.0 for no tokens)."""
    tokens = result.target_tokens
    return result.score / len(tokens) if tokens else 0.0


def _words(tokens):
    """`(words, word index of each token)`: tokens grouped into the words they spell."""
    if any(t.startswith("▁") for t in tokens):  # SentencePiece
        starts = [i == 0 or t.startswith("▁") for i, t in enumerate(tokens)]
        strip = "▁"
    elif tokens and all(len(t) == 1 or t[0] + t[-1] == "<>" for t in tokens):
        # characters (and special tokens such as <unk>): " " separates words
        starts = [i == 0 or (t != " " and tokens[i - 1] == " ") for i, t in enumerate(tokens)]
        strip = " "
    else:  # words
        starts, strip = [True] * len(tokens), None
    words, index = [], []
    for token, start in zip(tokens, starts, strict=True):
        if start or not words:
            words.append("")
        words[-1] += token
        index.append(len(words) - 1)
    return [w.replace(strip, "") if strip else w for w in words], index


def word_alignment(result):
    """Links between the words of `result`'s source and its greedy translation.

    Returns:
        `{"source_words", "target_words", "links"}`: `links` is a list of `[source word,
        target word]` index pairs (Pharaoh's `i-j` order), one per target word, ordered by the
        target word; `</s>` is not a word. Empty lists for an empty translation.
    """
    target = [t for t in result.target_tokens if t != END]
    source = [t for t in result.source_tokens if t != END]
    source_words, source_index = _words(source)
    target_words, target_index = _words(target)
    if not source_words or not target_words:
        return {"source_words": source_words, "target_words": target_words, "links": []}
    weights = np.asarray(result.weights, np.float32)[: len(target), : len(source)]
    # Sum over the tokens of each word pair: (target words, source words).
    by_source = np.zeros((len(target), len(source_words)), np.float32)
    np.add.at(by_source.T, np.asarray(source_index), weights.T)
    by_word = np.zeros((len(target_words), len(source_words)), np.float32)
    np.add.at(by_word, np.asarray(target_index), by_source)
    links = [[int(np.argmax(row)), j] for j, row in enumerate(by_word)]
    return {"source_words": source_words, "target_words": target_words, "links": links}
