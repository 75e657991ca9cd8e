"""Clean sentences for spelling correction: read a text file, split it reproducibly."""

import random

from keras_nmt.plural import plural
from keras_nmt.workshop.corpora.corpus import open_binary, resolve_path


def read_sentences(path, column=None, max_sentences=None, max_chars=None):
    """Distinct, non-empty sentences of a text file, in file order.

    Args:
        path: one sentence per line (plain, ``.gz``, ``.xz`` or ``.zip``); a missing path is
            also tried with those suffixes.
        column: for tab-separated files, the 0-based column to read (Tatoeba/Anki files hold
            ``English<TAB>other``, so 0 is English); ``None`` reads whole lines.
        max_sentences: keep only the first this many distinct sentences.
        max_chars: skip sentences longer than this many characters.

    Returns:
        A list of stripped strings; duplicates are dropped (a Tatoeba English sentence is
        repeated once per translation, and a repeat would leak training sentences into the test
        set).
    """
    seen = set()
    sentences = []
    with open_binary(resolve_path(path)) as stream:
        for raw in stream:
            line = raw.decode("utf-8", errors="replace").rstrip("\r\n")
            if column is not None:
                fields = line.split("\t")
                if column >= len(fields):
                    continue
                line = fields[column]
            line = " ".join(line.split())
            if not line or line in seen or (max_chars is not None and len(line) > max_chars):
                continue
            seen.add(line)
            sentences.append(line)
            if max_sentences is not None and len(sentences) >= max_sentences:
                break
    if not sentences:
        raise ValueError(f"no sentences in {path}" + (f" (column {column})" if column else ""))
    return sentences


def split_sentences(sentences, seed=0, valid_size=None, test_size=None):
    """A seeded ``(train, valid, test)`` split of distinct sentences.

    Args:
        sentences: the clean sentences.
        seed: shuffling seed: the same seed gives the same split.
        valid_size, test_size: sentences held out for each (default: 5% of the sentences, at
            least 1 and at most 1,000 each).

    Returns:
        Three lists; every sentence is in exactly one.
    """
    default = min(1000, max(1, len(sentences) // 20))
    valid_size = default if valid_size is None else valid_size
    test_size = default if test_size is None else test_size
    if valid_size + test_size >= len(sentences):
        raise ValueError(
            f"{plural(len(sentences), 'sentence')} cannot hold {valid_size} validation and "
            f"{test_size} test sentences and still leave some for training"
        )
    order = list(range(len(sentences)))
    random.Random(seed).shuffle(order)
    shuffled = [sentences[i] for i in order]
    valid = shuffled[:valid_size]
    test = shuffled[valid_size : valid_size + test_size]
    return shuffled[valid_size + test_size :], valid, test
