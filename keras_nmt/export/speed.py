"""Translation throughput, for comparing a SavedModel with the in-process Translator."""

import time

from keras_nmt.inference import open_translator


def measure_translation_speed(translator, texts, batch_size=64, repeats=1, warmup=True, **options):
    """Sentences per second of `translator.translate_batch(texts, **options)`.

    Args:
        translator: a `Translator`, a `SavedTranslator`, or a path for `open_translator`.
        texts: the sentences (a list of strings).
        batch_size: sentences per graph call.
        repeats: timed passes over `texts` (the best is kept).
        warmup: run one untimed batch first (tracing, graph optimization).
        **options: more `translate_batch` options (e.g. `beam_size=4`).

    Returns:
        A dict: `sentences_per_second`, `seconds` (best pass), `sentences`.
    """
    if not hasattr(translator, "translate_batch"):
        translator = open_translator(translator)
    texts = list(texts)
    if warmup and texts:
        translator.translate_batch(texts[:batch_size], batch_size=batch_size, **options)
    best = float("inf")
    for _ in range(max(1, repeats)):
        start = time.perf_counter()
        translator.translate_batch(texts, batch_size=batch_size, **options)
        best = min(best, time.perf_counter() - start)
    return {
        "sentences_per_second": len(texts) / best if best > 0 else float("inf"),
        "seconds": best,
        "sentences": len(texts),
    }
