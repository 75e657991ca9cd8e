"""The decoding strategies by name: the one place a strategy's name is dispatched.

A strategy is a step function run by the one decoding loop (`keras_nmt.decoding.loop.decode`):
greedy decoding and sampling choose one token per sentence and step; beam search ranks the
extensions of its beams (`beam_step`) and keeps its hypotheses in a `BeamSearch`. ``decode``,
``DecodingOptions`` (its ``strategy`` choices and ``options()``), the in-process
``Translator``, the server and the exports all read ``STRATEGIES``. Adding a strategy is its
step function and one entry here (CONTRIBUTING.md, "Adding a decoding strategy";
`tests/test_adding_a_strategy.py`). The table imports the step functions, hence Keras: the
command line reads it after parsing, so that ``--help`` loads no backend.
"""

import dataclasses
from collections.abc import Callable

from keras_nmt.decoding.beam_search import BeamSearch, beam_step
from keras_nmt.decoding.decoding_options import COMMON_OPTIONS
from keras_nmt.decoding.greedy import greedy_step
from keras_nmt.decoding.sampling import sample_step, sampling_options


@dataclasses.dataclass(frozen=True)
class Strategy:
    """A decoding strategy.

    Attributes:
        step: the step function. With ``hypotheses=None`` (one hypothesis per sentence, kept
            by the loop): ``step(logits, log_probs, t, sentences, **options) -> int32
            (batch,)``, the next token of each sentence (``sentences``: each one's index in
            the caller's input). Otherwise what ``hypotheses`` calls.
        options: the ``DecodingOptions`` fields it reads (the loop's ``COMMON_OPTIONS`` and
            its own, passed to ``prepare`` or ``step``).
        title: what messages call it (``"beam search"``).
        exports: the exports that serve it themselves (``"savedmodel"``: a signature,
            ``"ctranslate2"``: a decoding mode). Every strategy runs in process.
        prepare: ``prepare(**own_options) -> dict``: checks its own options and fixes what is
            drawn once per call (sampling's seed); ``None``: passed as they are.
        hypotheses: a class keeping several hypotheses per sentence (`BeamSearch`), made as
            ``hypotheses(step, has_attention, return_attention, **own_options)``; ``None``:
            one per sentence.

    Example:
        >>> STRATEGIES["sample"].exports
        ('ctranslate2',)
    """

    step: Callable
    options: tuple[str, ...]
    title: str
    exports: tuple[str, ...] = ()
    prepare: Callable | None = None
    hypotheses: type | None = None


STRATEGIES = {
    "greedy": Strategy(greedy_step, COMMON_OPTIONS, "greedy decoding",
                       ("savedmodel", "ctranslate2")),
    "beam": Strategy(beam_step, COMMON_OPTIONS + (
        "beam_size", "n_best", "normalization", "length_penalty", "coverage_penalty"),
        "beam search", ("savedmodel", "ctranslate2"), hypotheses=BeamSearch),
    "sample": Strategy(sample_step, COMMON_OPTIONS + ("temperature", "top_k", "top_p", "seed"),
                       "sampling", ("ctranslate2",), prepare=sampling_options),
}

