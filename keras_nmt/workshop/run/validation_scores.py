"""`ValidationScores`: translate a validation set at the end of epochs and log BLEU, chrF, CER."""

from collections.abc import Callable, Sequence

import keras

from keras_nmt.metrics.references import References, as_reference_lists
from keras_nmt.workshop.evaluation import score_all

LOGGED = ("bleu", "chrf", "cer", "exact_match")  # the `score_all` entries written to the logs


class ValidationScores(keras.callbacks.Callback):
    """Keras callback that scores real translations of a validation set during ``model.fit``.

    Teacher-forced validation loss says little about what the decoder produces on its own; this
    callback calls ``translate_fn`` on the validation sources (every ``every`` epochs) and writes
    into the epoch's ``logs``:

    - ``{prefix}bleu``: corpus BLEU, 0-100 (sacreBLEU, 13a, mixed case; Papineni et al., 2002),
    - ``{prefix}chrf``: corpus chrF2, 0-100 (Popović, 2015),
    - ``{prefix}cer``: corpus character error rate, a fraction (closest reference),
    - ``{prefix}exact_match``: fraction of hypotheses equal to one of their references,

    all Python floats. Keras passes one ``logs`` dict to the callbacks in list order and appends
    its own ``History`` (and progress bar) after the user's callbacks, so the scores land in
    ``model.fit(...).history`` and are printed. **Place this callback before** ``EarlyStopping``,
    ``ModelCheckpoint``, ``ReduceLROnPlateau`` or any callback that monitors ``val_bleu``: a
    callback earlier in the list sees the logs before the scores exist.

    On epochs that are skipped (``every > 1``) nothing is written: monitors then warn about a
    missing key and leave their state unchanged, whereas a placeholder value would count as "no
    improvement"; History records only the evaluated epochs under these keys.

    Args:
        translate_fn: ``translate_fn(list_of_source_strings) -> list_of_hypothesis_strings`` of
            the same length (e.g. a batched greedy translator); ``bytes`` results (from
            ``tf.string`` tensors) are decoded as UTF-8.
        sources: ``num_sentences`` source strings (see `evaluation.group_references` to
            merge repeated sources of Tatoeba-style test sets).
        references: ``num_sentences`` entries, each a reference string or a sequence of them.
        every: Score every ``every`` epochs (epochs ``every - 1``, ``2 * every - 1``, ... counting
            from 0).
        max_sentences: Score only this many sentences (speed), evenly spaced over the set
            (corpora are often sorted by length, so the first ones would be the shortest);
            all when None.
        prefix: Prefix of the log keys.

    Attributes:
        last_hypotheses: The hypotheses of the latest evaluation.
        scores: ``list[(epoch, dict)]`` of every evaluation so far.

    Example::

        scores = ValidationScores(translator, val_sources, val_references, every=1)
        stop = keras.callbacks.EarlyStopping(monitor="val_bleu", mode="max", patience=2)
        model.fit(train, epochs=20, callbacks=[scores, stop])  # scores first
    """

    def __init__(
        self,
        translate_fn: Callable[[list[str]], Sequence[str]],
        sources: Sequence[str],
        references: References,
        every: int = 1,
        max_sentences: int | None = None,
        prefix: str = "val_",
    ):
        super().__init__()
        if every < 1:
            raise ValueError(f"every must be >= 1, got {every}")
        reference_lists = as_reference_lists(references, len(sources))
        if max_sentences is not None and max_sentences < len(sources):
            # The middle of each of max_sentences equal slices of the set.
            picked = [(2 * i + 1) * len(sources) // (2 * max_sentences)
                      for i in range(max_sentences)]
            sources = [sources[i] for i in picked]
            reference_lists = [reference_lists[i] for i in picked]
        if len(sources) == 0:
            raise ValueError("no validation sentences")
        self.translate_fn = translate_fn
        self.sources = list(sources)
        self.references = reference_lists
        self.every = int(every)
        self.prefix = prefix
        self.last_hypotheses: list[str] = []
        self.scores: list[tuple[int, dict[str, float]]] = []

    def evaluate(self) -> dict[str, float]:
        """Translates the sources and returns the scores, keyed with the prefix."""
        hypotheses = [
            h.decode("utf-8") if isinstance(h, bytes) else str(h)
            for h in self.translate_fn(list(self.sources))
        ]
        if len(hypotheses) != len(self.sources):
            raise ValueError(
                f"translate_fn returned {len(hypotheses)} hypotheses"
                f" for {len(self.sources)} sources"
            )
        self.last_hypotheses = hypotheses
        return {
            f"{self.prefix}{key}": float(value)
            for key, value in score_all(hypotheses, self.references).items()
            if key in LOGGED
        }

    def on_epoch_end(self, epoch, logs=None):
        if (epoch + 1) % self.every != 0:
            return
        scores = self.evaluate()
        self.scores.append((epoch, scores))
        if logs is not None:
            logs.update(scores)  # the same dict reaches the later callbacks and History
