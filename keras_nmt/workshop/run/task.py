"""The task of a training run: where its pairs come from and how its training batches are made.

As fairseq's task (`fairseq.tasks.FairseqTask`: datasets, dictionaries, batch iterator), a
`Task` is the one extension point through which a kind of training data plugs into
`keras_nmt.workshop.run.trainer.train`. It has two methods:

- `load_pairs(config)`: ``(train_pairs, valid_pairs)``; the tokenizers are built on
  ``train_pairs`` and every epoch is scored on ``valid_pairs``.
- `training_stream(config, train_pairs, source_tokenizer, target_tokenizer)`: a
  `TrainingStream`, the run's training batches in one fixed order, pass after pass.

The training batches of a run are numbered ``0, 1, 2, ...`` over the whole run; epoch ``e``
is batches ``e * E`` to ``(e + 1) * E - 1``, where ``E`` is ``config.steps_per_epoch`` or, by
default, one pass over the data. A stream gives any range of them from its seed alone
(`TrainingStream.batches`), so a run resumed at batch ``b`` of epoch ``e`` trains on exactly the
batches an uninterrupted run would have, for every task (`keras_nmt.workshop.run.exact_backup`).

Two siblings implement it: the translation task (`TranslationTask`) reads ``config.data`` and
shuffles the tokenized pairs each pass (`keras_nmt.data.pipeline.make_dataset`); the spelling task
(`keras_nmt.workshop.spelling.task.SpellingTask`) draws fresh noise over clean sentences each pass.
Other pairs of strings subclass `TranslationTask` and override `load_pairs`; another kind of batches
subclasses `Task`. Validation, scores, the run folder and resumption stay common.

Example:
    >>> class ReversedTask(TranslationTask):          # learn to reverse words  # doctest: +SKIP
    ...     def load_pairs(self, config):
    ...         words = ["hola", "adios", "gato"]
    ...         pairs = [(w, w[::-1]) for w in words]
    ...         return pairs, pairs
    >>> train(TrainConfig(tokenizer="char"), task=ReversedTask())  # doctest: +SKIP
"""

import abc

import numpy as np

from keras_nmt.data.pipeline import make_dataset, tokenize_pairs
from keras_nmt.workshop.corpora.builtin import BUILTIN_DATASETS
from keras_nmt.workshop.corpora.corpus import has_splits, load_corpus
from keras_nmt.workshop.corpora.corpus_checks import check_bad_lines


class TrainingStream:
    """The training batches of a run, in the format of `keras_nmt.data.pipeline.make_dataset`.

    Attributes:
        batches_per_pass: batches in one pass over the training data (the default epoch).
        target_tokens_per_pass: non-padding target tokens (``y + [END]`` of each pair) in one
            pass, the numerator of the comparison's tokens/s.
        summary: one line on the data (for the run's log).
    """

    batches_per_pass: int
    target_tokens_per_pass: int
    summary: str

    def batches(self, start, stop):
        """Batches ``start`` to ``stop - 1`` of the run, numbered over all passes: a finite
        ``tf.data.Dataset`` that depends only on the stream's seed and ``start``.

        Example:
            With 8 batches per pass, ``batches(12, 24)`` is pass 1 from its 5th batch, then
            pass 2.
        """
        raise NotImplementedError


class PairStream(TrainingStream):
    """Tokenized pairs, shuffled and length-bucketed anew in each pass (`make_dataset`)."""

    def __init__(self, config, tokenized):
        self.config = config
        self.tokenized = tokenized
        self.batches_per_pass = int(self._passes(0, 1).cardinality())
        self.target_tokens_per_pass = int(tokenized.target_lengths.sum())
        self.summary = tokenized.summary()

    def batches(self, start, stop):
        # Pass p is shuffled with a seed made of (config.seed, p) only, so a range of passes can
        # start anywhere.
        first, skip = divmod(start, self.batches_per_pass)
        return self._passes(first, -(-stop // self.batches_per_pass)).skip(skip).take(stop - start)

    def _passes(self, first, stop):
        """Passes ``first`` to ``stop - 1`` of the tokenized pairs, one after another."""
        return make_dataset(
            self.tokenized, shuffle=True, seed=self.config.seed, batch_size=self.config.batch_size,
            batch_tokens=self.config.batch_tokens, epochs=range(first, stop),
        )


class Task(abc.ABC):
    """What `keras_nmt.workshop.run.trainer.train` asks of its data: `load_pairs` and
    `training_stream` (see the module docstring)."""

    @abc.abstractmethod
    def load_pairs(self, config):
        """``(train_pairs, valid_pairs)``: lists of ``(source, target)`` strings."""

    @abc.abstractmethod
    def training_stream(self, config, train_pairs, source_tokenizer, target_tokenizer):
        """The run's `TrainingStream`, made with the tokenizers built on ``train_pairs``."""


class TranslationTask(Task):
    """Parallel sentences from ``config.data`` (a built-in dataset or corpus files).

    Subclass it and override `load_pairs` to train on other pairs (see the module docstring).
    """

    def load_pairs(self, config):
        """``(train_pairs, valid_pairs)``: lists of ``(source, target)`` strings (`load_pairs`)."""
        return load_pairs(config)

    def training_stream(self, config, train_pairs, source_tokenizer, target_tokenizer):
        """The `TrainingStream` of ``train_pairs``, tokenized once (``config.max_length``
        applies)."""
        tokenized = tokenize_pairs(
            train_pairs, source_tokenizer, target_tokenizer, max_length=config.max_length
        )
        return PairStream(config, tokenized)


def load_pairs(config):
    """`(train_pairs, valid_pairs)` for `config.data` / `config.valid`.

    A built-in name or a path with `{split}` gives both splits. A single file gives the training
    pairs, and, without `--valid`, a seeded hold-out for validation (`valid_size` pairs, default
    5% and at most 2,000). `train_size` / `valid_size` cap every source alike (`cap_pairs`).
    With `config.skip_bad_lines`, malformed lines are skipped (and reported, see
    `CorpusStats.summary`) unless more than `config.max_bad_fraction` of a file is bad.

    A capped file is read twice, to count its pairs and to hold only `cap_pairs`' sample of
    them (the same pairs, in file order): memory for the sample, never the file.
    """

    def read(spec, split=None, size=None, keep=None, report=True):  # reported once per file
        corpus = load_corpus(
            spec, split, size=size, seed=config.seed, source_column=config.source_column,
            target_column=config.target_column,
            on_error="skip" if config.skip_bad_lines else "raise",
            header="keep" if config.accept_data else "skip", keep=keep,
        )
        if report and corpus.stats.header_warning():
            print(corpus.stats.header_warning())
        if report and corpus.stats.num_skipped:
            check_bad_lines(corpus.stats, config.max_bad_fraction)
            print(corpus.stats.summary())
        return corpus

    def sampled(spec, split, size, seed):  # cap_pairs(pairs of spec, size, seed)
        if size is None or spec in BUILTIN_DATASETS:
            return cap_pairs(read(spec, split, size=size).pairs, size, seed)
        count = read(spec, split, keep=set()).stats.kept  # counted, nothing held
        chosen = None if count <= size else set(_sample(count, size, seed).tolist())
        return read(spec, split, keep=chosen, report=False).pairs

    if config.valid:
        return (sampled(config.data, None, config.train_size, config.seed),
                sampled(config.valid, None, config.valid_size, config.seed + 1))
    if has_splits(config.data):
        return (sampled(config.data, "train", config.train_size, config.seed),
                sampled(config.data, "valid", config.valid_size, config.seed + 1))
    sampling = config.train_size is not None or config.valid_size is not None
    pairs = None if sampling else read(config.data).pairs
    count = read(config.data, keep=set()).stats.kept if sampling else len(pairs)
    held_out = config.valid_size or min(2000, max(1, count // 20))
    valid = np.sort(np.random.default_rng(config.seed).permutation(count)[:held_out])
    # The others train, in file order; capped, only the chosen ones are numbered (`_others`).
    others = count - len(valid)
    if config.train_size is not None and others > config.train_size:
        train = _others(valid, _sample(others, config.train_size, config.seed))
    else:
        train = _others(valid, np.arange(others))
    if sampling:
        held = set(train.tolist()) | set(valid.tolist())
        pairs = dict(zip(sorted(held), read(config.data, keep=held, report=False).pairs,
                         strict=True))
    return [pairs[i] for i in train], [pairs[i] for i in valid]


def _others(taken, ranks):
    """The numbers at `ranks` among 0, 1, 2... less the sorted `taken`: `([1, 3], [0, 1, 2])`
    gives `[0, 2, 4]` (rank r is r plus the numbers taken at or below it)."""
    shifted = taken - np.arange(len(taken))  # how many are taken before each, by rank
    return ranks + np.searchsorted(shifted, ranks, side="right")


def _sample(count, size, seed):
    """The sorted numbers of `cap_pairs`' seeded sample of `size` out of `count`."""
    return np.sort(np.random.default_rng(seed).choice(count, size, replace=False))


def cap_pairs(pairs, size, seed):
    """At most `size` of `pairs`: a seeded sample kept in their order (all when `size` is None).

    Example:
        >>> cap_pairs([("a", "A"), ("b", "B"), ("c", "C")], 2, seed=0)  # two of them, in order
    """
    if size is None or len(pairs) <= size:
        return pairs
    return [pairs[i] for i in _sample(len(pairs), size, seed)]
