"""Which column of a data file feeds a model: found by checking the file against the model.

A model translates one language into another; a data file holds the two languages in some
order, which is a property of the file (Tatoeba's are English first), not of the model. So a
command that reads pairs for an existing model (`keras-nmt evaluate`, `train --init-from`)
reads the file as it was told or as the model's data was read, then measures how well each
column fits each side of the model, and swaps the columns when the other order fits clearly
better:

- **the training data's profile** (`keras_nmt.workshop.corpora.data_profile`, a run's and its
  exports' `data.json`): the words of each column unknown to each side of the training data;
- **the tokenizers** (every model has them, an imported one included): each column cut by each
  side's tokenizer, counting pieces per character plus `UNKNOWN_WEIGHT` per unknown token. A
  tokenizer built on a language cuts that language into fewer pieces (SentencePiece, OPUS-MT's
  tokenizers) and knows its words and characters (word and character vocabularies). Comparing
  the two complete assignments, (column a to the source and b to the target) against (b to the
  source and a to the target), cancels what belongs to a column alone (long or short words).

The profile decides first (it is the training data itself), then the tokenizers; when neither
tells the orders apart (one tokenizer for both sides and no profile), the columns stay as read,
and the line printed says so. A file that fits neither order (another language or script on a
side, by the profile or with most tokens unknown to a side's tokenizer) is refused, as is a
`--source-column` that names the column of the model's target language. Language identification
by code is not used: the vocabulary fit separates the two languages of a pair on every model
the tests hold (tiny OPUS-MT fixture, word, character and subword runs), and it needs no
language model of its own.

Example:
    >>> choice = choose_columns(pairs, model_data("runs/opus-es-en"), "test.tsv", ("column 0",
    ...                         "column 1"))                                 # doctest: +SKIP
    >>> choice.swapped, choice.line                                         # doctest: +SKIP
    (True, 'test.tsv: column 1 fed the model (its source, es); the reference: column 0 ...')
"""

import dataclasses

import numpy as np

from keras_nmt.special_ids import NUM_RESERVED, UNK_ID
from keras_nmt.workshop.corpora.data_profile import (
    FOREIGN_CHARACTERS,
    FOREIGN_WORDS,
    MAX_MEASURED,
    REVERSED_MARGIN,
    measure,
)
from keras_nmt.workshop.marian_tokenizer import load_run_tokenizer
from keras_nmt.workshop.run.provenance import SIDES, language_name

# An unknown token costs as much as this many pieces: it loses a word, not just cuts it.
UNKNOWN_WEIGHT = 4.0
# The tokenizers tell the orders apart when one assignment costs this much less (relative).
TOKENIZER_MARGIN = 0.02
# A side whose tokens are mostly unknown to its tokenizer is another language or script.
FOREIGN_TOKENS = 0.5


@dataclasses.dataclass
class ColumnChoice:
    """Which way round a file's pairs feed a model.

    Attributes:
        swapped: the second column read feeds the model's source, the first is the reference.
        line: what the command prints: which column fed the model and why.
    """

    swapped: bool
    line: str


def _texts(pairs, index):
    return [pair[index] for pair in pairs[:MAX_MEASURED]]


def tokenizer_costs(pairs, tokenizers):
    """``{(column, side): (cost, unknown rate)}`` of each column (0, 1) cut by each side's
    tokenizer: cost = (pieces + `UNKNOWN_WEIGHT` x unknown pieces) per visible character."""
    costs = {}
    for side, tokenizer in zip(SIDES, tokenizers, strict=True):
        for column in (0, 1):
            texts = _texts(pairs, column)
            ids = tokenizer.tokenize(texts).flat_values.numpy()
            ids = ids[(ids >= NUM_RESERVED) | (ids == UNK_ID)]  # pieces, no <s> or </s>
            unknown = int(np.sum(ids == UNK_ID))
            characters = max(1, sum(len("".join(text.split())) for text in texts))
            costs[column, side] = ((ids.size + UNKNOWN_WEIGHT * unknown) / characters,
                                   unknown / ids.size if ids.size else 0.0)
    return costs


def _profile_verdict(pairs, profile):
    """(+1 as read, -1 swapped, 0 undecided; the evidence in words; the rates)."""
    rates = measure(pairs, profile)
    as_read = (rates["source_words"] + rates["target_words"]) / 2
    swapped = (rates["swapped_source_words"] + rates["swapped_target_words"]) / 2
    evidence = (f"{as_read:.0%} of its words unknown to the side they would feed as read, "
                f"{swapped:.0%} swapped")
    if abs(as_read - swapped) <= REVERSED_MARGIN:
        return 0, evidence, rates
    return (1 if as_read < swapped else -1), evidence, rates


def _tokenizer_verdict(costs):
    """(+1, -1 or 0; the evidence in words)."""
    as_read = costs[0, "source"][0] + costs[1, "target"][0]
    swapped = costs[1, "source"][0] + costs[0, "target"][0]
    evidence = (f"its tokenizers cut the columns into {as_read / 2:.2f} pieces per character "
                f"as read, {swapped / 2:.2f} swapped")
    if abs(as_read - swapped) <= TOKENIZER_MARGIN * min(as_read, swapped):
        return 0, evidence
    return (1 if as_read < swapped else -1), evidence


def _misfit(rates, costs, columns, names, languages):
    """Why the order chosen fits a side of the model badly, in words, or None.

    Args:
        rates: `measure` of the pairs as they will be fed, or None (no profile).
        costs: `tokenizer_costs` of the pairs as read, or None.
        columns: the column read that feeds each side, `(source, target)`.
        names: the names of the columns read.
        languages: the model's languages.
    """
    for side, column in zip(SIDES, columns, strict=True):
        what = f"{names[column]} does not read like the model's {side} language"
        language = f" ({_language(languages, side)})" if languages else ""
        if rates is not None:
            words, characters = rates[f"{side}_words"], rates[f"{side}_characters"]
            if words > FOREIGN_WORDS or characters > FOREIGN_CHARACTERS:
                return (f"{what}{language}: {words:.0%} of its words and {characters:.1%} of "
                        "its characters never occurred on that side in training (another "
                        "language or script?)")
        if costs is not None and costs[column, side][1] > FOREIGN_TOKENS:
            return (f"{what}{language}: {costs[column, side][1]:.0%} of its tokens are unknown "
                    "to the model's tokenizer (another language or script?)")
    return None


def _language(languages, side):
    return language_name(languages[side], side) if languages else side


def choose_columns(pairs, model, name, names, stated=False, fixed=False):
    """Decides which way round `pairs` feed `model` (see the module).

    Args:
        pairs: the ``(first, second)`` pairs as read (the first column read as the source).
        model: the model's `keras_nmt.workshop.translators.open_translator.ModelData`.
        name: the file, for messages.
        names: how the two columns read are called, e.g. ``("column 0", "column 1")``.
        stated: the order was given by the user (``--source-column``): a contradiction is
            refused instead of swapped.
        fixed: the order cannot be other (generated data, in the model's order): only checked
            for a side that fits no side of the model.

    Returns:
        A `ColumnChoice`.

    Raises:
        ValueError: the file fits neither order, or `stated` and the other order fits.
    """
    languages = model.languages
    rates = costs = None
    verdicts = []
    if model.profile is not None:
        verdict, evidence, rates = _profile_verdict(pairs, model.profile)
        verdicts.append((verdict, f"the words of its training data: {evidence}"))
    if model.tokenizers is not None:
        costs = tokenizer_costs(pairs, [load_run_tokenizer(model.tokenizers / s) for s in SIDES])
        verdicts.append(_tokenizer_verdict(costs))
    verdict, evidence = (0, None) if fixed else next(((v, e) for v, e in verdicts if v),
                                                     (0, None))
    swapped = verdict < 0
    if swapped and stated:
        raise ValueError(
            f"{name}: {names[0]} is given as the source, but {names[1]} reads like the model's "
            f"source language ({_language(languages, 'source')}; {evidence}); leave "
            "--source-column out to feed it that column (two files: give them the other way "
            "round), or add --accept-data to use the data as given")
    columns = (1, 0) if swapped else (0, 1)
    if rates is not None and swapped:  # measured on the pairs as they will be fed
        rates = measure([(b, a) for a, b in pairs], model.profile)
    problem = _misfit(rates, costs, columns, names, languages)
    if problem:
        raise ValueError(f"{name}: {problem}; check the file and its columns, or add "
                         "--accept-data to use it as it is")
    how = ("generated in the model's order" if fixed else
           f"found by checking the file against the model ({evidence})" if verdict else
           "as read: both column orders fit the model alike (one tokenizer for both sides "
           "tells them apart only with the training data's profile)")
    line = (f"{name}: {names[columns[0]]} fed the model (its source, "
            f"{_language(languages, 'source')}); the reference: {names[columns[1]]} "
            f"({_language(languages, 'target')}); {how}")
    return ColumnChoice(swapped, line)
