"""Translation throughput and first-call latency, in-process and through the SavedModel (#18).

Measures, on one trained run directory and a file of source sentences, in one run:

* `decode_profile`: sentences/s of `keras_nmt.decoding.decode` on the model alone (no
  tokenizers), greedy and beam, with decode caches of the model's `max_length` or of the
  batch's own limit, batches in file order or sorted by length.
* `translation_speeds`: sentences/s of `translate_batch` (strings in and out) for the in-process
  `Translator` and the exported `SavedTranslator`, per beam size and batch size, timed after a
  warm-up batch (reported separately), with the agreement of their outputs.
* `first_call_seconds`: the first call of each signature of a freshly loaded SavedModel, and
  the first in-process call of each strategy of a fresh `Translator`.

`keras-nmt benchmark --only translation --run RUN_DIR` runs it (`translation_section`).
"""

import tempfile
from functools import partial

import tensorflow as tf

from keras_nmt.benchmarks.decode_speed import measure_decode_speed
from keras_nmt.decoding import length_order
from keras_nmt.decoding.decoding_options import DEFAULT_LENGTH_PENALTY
from keras_nmt.export import export_translator
from keras_nmt.inference import RunDirectory, SavedTranslator
from keras_nmt.special_ids import PAD_ID
from keras_nmt.timing import time_call

FIRST_CALL_TEXT = "Tom no sabe dónde vive Mary."


def source_batches(tokenizer, texts, batch_size, sort=True):
    """Source id arrays `(batch, longest)` padded with `PAD_ID`, sorted by length or not.

    Args:
        tokenizer: the source tokenizer (`tokenize` -> ragged ids).
        texts: the sentences.
        batch_size: sentences per batch.
        sort: group sentences of similar lengths (`length_order`) instead of file order.

    Returns:
        A list of int32 numpy arrays.
    """
    texts = list(texts)
    if sort:
        texts = [texts[i] for i in length_order(texts)]
    batches = []
    for start in range(0, len(texts), batch_size):
        ragged = tokenizer.tokenize(tf.constant(texts[start : start + batch_size]))
        batches.append(ragged.to_tensor(default_value=PAD_ID).numpy().astype("int32"))
    return batches


def decode_profile(model, tokenizer, texts, batch_size=64, beam_sizes=(1, 4, 8), max_length=None):
    """Decoding speed of the model alone, per beam size, cache size and batch order.

    Args:
        model: keeps the inference contract.
        tokenizer: the source tokenizer.
        texts: the sentences.
        batch_size: sentences per batch.
        beam_sizes: 1 is greedy.
        max_length: the global length cap (`None`: the decoding default).

    Returns:
        A list of dicts: `beam_size`, `batch_cache`, `sorted`, and `measure_decode_speed`'s.
    """
    records = []
    for sort in (False, True):
        batches = source_batches(tokenizer, texts, batch_size, sort)
        for beam_size in beam_sizes:
            for batch_cache in (False, True):
                options = dict(batch_cache=batch_cache, max_length=max_length)
                if beam_size == 1:
                    result = measure_decode_speed(model, batches, "greedy", **options)
                else:
                    result = measure_decode_speed(
                        model, batches, "beam", beam_size=beam_size, **options
                    )
                records.append(
                    {"beam_size": beam_size, "batch_cache": batch_cache, "sorted": sort, **result}
                )
    return records


def translate_in_file_order(translator, texts, batch_size=64, **options):
    """`translate_batch` one file-order batch at a time: the batches before length sorting."""
    results = []
    for start in range(0, len(texts), batch_size):
        chunk = texts[start : start + batch_size]
        results.extend(translator.translate_batch(chunk, batch_size=batch_size, **options))
    return results


def time_translation(translator, texts, batch_size=64, sort=True, **options):
    """Sentences/s of `translate_batch` after one warm-up batch (timed on its own).

    Args:
        translator: a `Translator` or `SavedTranslator`.
        texts: the sentences.
        batch_size: sentences per graph call.
        sort: batches sorted by length (`translate_batch` itself) or in file order.
        **options: more `translate_batch` options (`beam_size`, `length_penalty`).

    Returns:
        A dict: `sentences_per_second`, `seconds`, `warmup_seconds`, `sentences`, and
        `results` (the `TranslationResult`s, for agreement checks).

    Example:
        >>> time_translation(translator, ["Hola.", "Adiós."], beam_size=4)["sentences"]
        2
    """
    translate = translator.translate_batch if sort else (
        lambda items, **kw: translate_in_file_order(translator, items, **kw))
    timing = time_call(
        lambda: translate(texts, batch_size=batch_size, **options),
        warmup=lambda: translator.translate_batch(
            texts[:batch_size], batch_size=batch_size, **options),
    )
    return {
        "sentences_per_second": len(texts) / timing.total,
        "seconds": timing.total,
        "warmup_seconds": timing.warmup_seconds,
        "sentences": len(texts),
        "results": timing.result,
    }


def agreement(ours, theirs):
    """Fraction of sentences with the same n-best texts, and the largest score difference."""
    same = sum(a.texts == b.texts for a, b in zip(ours, theirs, strict=True))
    difference = max(
        (abs(x - y) for a, b in zip(ours, theirs, strict=True)
         for x, y in zip(a.scores, b.scores, strict=True)),
        default=0.0,
    )
    return same / max(1, len(ours)), difference


def translation_speeds(translator, saved, texts, batch_sizes=(64,), beam_sizes=(1, 4, 8),
                       length_penalty=DEFAULT_LENGTH_PENALTY, sort_options=(True,)):
    """In-process vs SavedModel sentences/s per beam size, batch size and batch order.

    The two translators are timed alternately on each setting, so that load changes on a shared
    machine hit both alike.

    Returns:
        A list of dicts: `beam_size`, `batch_size`, `sorted`, `in_process` and `saved_model`
        (sentences/s), `in_process_warmup_seconds`, `saved_model_warmup_seconds`,
        `agreement` (fraction of sentences with equal outputs) and `max_score_difference`.
    """
    records = []
    for sort in sort_options:
        for batch_size in batch_sizes:
            for beam_size in beam_sizes:
                options = dict(beam_size=beam_size, batch_size=batch_size, sort=sort)
                if beam_size > 1:
                    options["length_penalty"] = length_penalty
                ours = time_translation(translator, texts, **options)
                theirs = time_translation(saved, texts, **options)
                same, difference = agreement(ours["results"], theirs["results"])
                records.append({
                    "beam_size": beam_size, "batch_size": batch_size, "sorted": sort,
                    "in_process": ours["sentences_per_second"],
                    "saved_model": theirs["sentences_per_second"],
                    "in_process_warmup_seconds": ours["warmup_seconds"],
                    "saved_model_warmup_seconds": theirs["warmup_seconds"],
                    "agreement": same, "max_score_difference": difference,
                })
    return records


def first_call_seconds(translator, beam_sizes=(1, 4, 8), text=FIRST_CALL_TEXT):
    """Seconds of the first `translate_batch` call per strategy on a fresh translator.

    For a `SavedTranslator` just loaded these are the first calls of its `serving_default`,
    `beam_search` (then `beam_search` again with other sizes) and `attention` signatures; for a
    fresh `Translator`, its tracing and first run.

    Returns:
        A dict `{"greedy": s, "beam 4": s, ..., "attention": s}`.
    """
    calls = [("greedy" if k == 1 else f"beam {k}", {"beam_size": k}) for k in beam_sizes]
    calls.append(("attention", {"return_attention": True}))
    return {name: time_call(partial(translator.translate_batch, [text], **options)).total
            for name, options in calls}


def run(run_dir, texts, batch_sizes=(64,), beam_sizes=(1, 4, 8),
        length_penalty=DEFAULT_LENGTH_PENALTY, profile=True, sort_options=(False, True)):
    """Everything above on one run directory (exported to a temporary directory).

    ``sort_options`` are the batch orders of `translation_speeds`; ``profile`` adds
    `decode_profile`.
    """
    report = {"sentences": len(texts)}
    # Beam sizes up to the largest measured: the export traces no other.
    timing = time_call(lambda: RunDirectory.load(run_dir).translator(max_beam_size=max(beam_sizes)))
    translator, report["load_run_seconds"] = timing.result, timing.total
    report["first_call_in_process"] = first_call_seconds(translator, beam_sizes)
    with tempfile.TemporaryDirectory() as directory:
        timing = time_call(partial(export_translator, translator, base_dir=directory, name="model"))
        path, report["export_seconds"] = timing.result, timing.total
        timing = time_call(partial(SavedTranslator, path))
        saved, report["load_saved_model_seconds"] = timing.result, timing.total
        report["first_call_saved_model"] = first_call_seconds(saved, beam_sizes)
        report["translation"] = translation_speeds(
            translator, saved, texts, batch_sizes, beam_sizes, length_penalty, sort_options,
        )
    if profile:
        report["decode"] = decode_profile(
            translator.model, translator.source_tokenizer, texts, batch_sizes[0], beam_sizes,
            translator.max_target_length,
        )
    return report
