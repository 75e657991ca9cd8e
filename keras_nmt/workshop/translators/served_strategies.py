"""Which decoding strategies an export serves itself, and the message refusing the others."""

from keras_nmt.decoding.strategies import STRATEGIES

# What the messages call each export (the keys of `Strategy.exports`).
EXPORTS = {"savedmodel": "the SavedModel", "ctranslate2": "a CTranslate2 export"}


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
