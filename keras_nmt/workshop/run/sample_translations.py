"""Prints a few translations at the end of each epoch."""

import keras


class SampleTranslations(keras.callbacks.Callback):
    """After each epoch, translates a few fixed sources and prints them next to the references.

    Args:
        translate: `list[str] -> list[str]`, e.g. a batched greedy translator.
        sources: the source sentences to translate (a handful).
        references: their reference translations.
        print_fn: where lines go (default `print`).

    Example:
        >>> SampleTranslations(translator.translate, ["3rd of March 2021"], ["2021-03-03"])
    """

    def __init__(self, translate, sources, references, print_fn=print):
        super().__init__()
        self.translate, self.sources, self.references = translate, list(sources), list(references)
        self.print_fn = print_fn

    def on_epoch_end(self, epoch, logs=None):
        hypotheses = self.translate(self.sources)
        rows = zip(self.sources, hypotheses, self.references, strict=True)
        for source, hypothesis, reference in rows:
            mark = "✓" if hypothesis == reference else "✗"
            self.print_fn(f"  {mark} {source!r} -> {hypothesis!r} (reference {reference!r})")
