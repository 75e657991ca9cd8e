"""The decoding strategies by name: the one place a strategy's name is dispatched.

``decode``, ``DecodingOptions`` (its ``strategy`` choices and ``options()``), the in-process
``Translator``, the server and the exports all read ``STRATEGIES``. Adding a strategy is its
module with its function, one entry here, and its test (CONTRIBUTING.md, "Adding a decoding
strategy"); the exports refuse a strategy they do not serve with ``check_served``'s message.
"""

import dataclasses
import importlib
from collections.abc import Callable

# The options every strategy accepts besides (model, encoder_tokens).
COMMON_OPTIONS = (
    "max_length", "max_length_a", "max_length_b", "return_attention", "trim", "batch_cache"
)
# What the messages call each export.
EXPORTS = {"savedmodel": "the SavedModel", "ctranslate2": "a CTranslate2 export"}


@dataclasses.dataclass(frozen=True)
class Strategy:
    """A decoding strategy.

    Attributes:
        function: ``(model, encoder_tokens, **options) -> DecodeResult``, or its import path
            ``"module:name"`` (imported on first use, so that reading the table imports no
            backend).
        options: the keyword arguments ``function`` accepts (``DecodingOptions`` fields).
        title: what messages call it (``"beam search"``).
        exports: the exports that serve it themselves (``EXPORTS`` keys): a SavedModel
            signature, a CTranslate2 decoding mode. Every strategy runs in process.

    Example:
        >>> STRATEGIES["sample"].exports
        ('ctranslate2',)
    """

    function: "Callable | str"
    options: tuple[str, ...]
    title: str
    exports: tuple[str, ...] = ()

    def load(self) -> Callable:
        """The strategy's function."""
        if callable(self.function):
            return self.function
        module, name = self.function.split(":")
        return getattr(importlib.import_module(module), name)


STRATEGIES = {
    "greedy": Strategy("keras_nmt.decoding.greedy:greedy_decode", COMMON_OPTIONS,
                       "greedy decoding", ("savedmodel", "ctranslate2")),
    "beam": Strategy("keras_nmt.decoding.beam_search:beam_search", COMMON_OPTIONS + (
        "beam_size", "n_best", "normalization", "length_penalty", "coverage_penalty"),
        "beam search", ("savedmodel", "ctranslate2")),
    "sample": Strategy("keras_nmt.decoding.sampling:sample_decode", COMMON_OPTIONS + (
        "temperature", "top_k", "top_p", "seed"), "sampling", ("ctranslate2",)),
}


def check_served(name, export):
    """Raises ``ValueError`` when ``export`` (an ``EXPORTS`` key) does not serve strategy ``name``.

    Example:
        >>> check_served("sample", "savedmodel")
        Traceback (most recent call last):
        ValueError: sampling is not exported to the SavedModel (only greedy decoding, beam search
        and attention are); translate with the run folder to use sampling
    """  # noqa: E501
    if export in STRATEGIES[name].exports:
        return
    served = [s.title for s in STRATEGIES.values() if export in s.exports]
    if export == "savedmodel":
        served.append("attention")  # the `attention` signature (greedy, with alignments)
    raise ValueError(
        f"{STRATEGIES[name].title} is not exported to {EXPORTS[export]} (only "
        f"{', '.join(served[:-1])} and {served[-1]} are); translate with the run folder to "
        f"use {STRATEGIES[name].title}"
    )
