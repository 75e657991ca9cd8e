"""Benchmark sections "export" and "translation": strings in and out, in-process vs SavedModel.

"export" (`run_export`): greedy sentences/s of each model's in-process `Translator` (untrained,
or the run of --run) and of its reloaded SavedModel, alternately.

"translation" (`run_translation`) needs a trained model (--run RUN_DIR; untrained models decode
to the length cap): on the spa-eng test sentences, tokenizers included, the first call of each
strategy on a fresh `Translator` and on a freshly loaded SavedModel, then sentences/s of both per
beam size (warm-up batch timed apart), time per sentence against greedy and the agreement of
their outputs; for a Transformer with CTranslate2 installed, also `ctranslate2_speed`'s engines.
"""

import importlib.util
import json
import tempfile
from functools import partial
from pathlib import Path

from keras_nmt.benchmarks import ctranslate2_speed
from keras_nmt.benchmarks.speed import beam_name, records_table
from keras_nmt.decoding import DecodingOptions
from keras_nmt.export import export_translator
from keras_nmt.inference import RunDirectory, SavedTranslator, Translator, open_translator
from keras_nmt.inference.run_directory import CONFIG_FILE
from keras_nmt.timing import time_call

FIRST_CALL_TEXT = "Tom no sabe dónde vive Mary."


def time_translation(translator, texts, batch_size=64, **options):
    """Sentences/s of `translate_batch` after one warm-up batch (timed on its own).

    Args:
        translator: a `Translator` or `SavedTranslator`.
        texts: the sentences.
        batch_size: sentences per graph call.
        **options: more `translate_batch` options (`beam_size`, `length_penalty`).

    Returns:
        A dict: `sentences_per_second`, `seconds`, `warmup_seconds`, `sentences`, and
        `results` (the `TranslationResult`s, for agreement checks).

    Example:
        >>> time_translation(translator, ["Hola.", "Adiós."], beam_size=4)["sentences"]
        2
    """
    timing = time_call(
        lambda: translator.translate_batch(texts, batch_size=batch_size, **options),
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


def first_call_seconds(translator, beam_sizes):
    """Seconds of the first `translate_batch` call per strategy on a fresh translator.

    For a `SavedTranslator` just loaded, the first calls of its `serving_default`, `beam_search`
    and `attention` signatures; for a fresh `Translator`, its tracing and first run.

    Returns:
        A dict `{"greedy": s, "beam 4": s, ..., "attention": s}`.
    """
    calls = [("greedy" if k == 1 else f"beam {k}", {"beam_size": k}) for k in beam_sizes]
    calls.append(("attention", {"return_attention": True}))
    return {name: time_call(partial(translator.translate_batch, [FIRST_CALL_TEXT],
                                    **options)).total
            for name, options in calls}


def run_translation(context):
    """Translation speed of the run of --run (skipped with a message without one).

    Args:
        context: the run's `BenchmarkContext` (--run, --data-dir, --decode-sentences,
            --beam-sizes, --batch-size).

    Returns:
        JSON records: one per signature's first call (`kind` "first_call"), one per beam size
        (`kind` "throughput"), and with CTranslate2 one per engine and beam size (`kind`
        "engine": `ctranslate2_speed.engine_speeds`).
    """
    args = context.options
    if not args.run:
        print("translation: skipped, needs a trained model: --run RUN_DIR (apps/train.py)")
        return []
    pairs = context.test_pairs("translation")
    if pairs is None:
        return []
    sources = context.test_sources(pairs)
    config = json.loads((Path(args.run) / CONFIG_FILE).read_text())
    beam_sizes = sorted({1, *args.beam_sizes})
    penalty = DecodingOptions().length_penalty
    base = {"section": "translation", "model": config["model"], "api": config["api"],
            "run": str(args.run), "sentences": len(sources), "batch_size": args.batch_size,
            **context.environment()}
    # Beam sizes up to the largest measured: the export traces no other.
    translator = RunDirectory.load(args.run).translator(max_beam_size=max(beam_sizes))
    first_in_process = first_call_seconds(translator, beam_sizes)
    with tempfile.TemporaryDirectory() as directory:
        path = export_translator(translator, base_dir=directory, name="model")
        loading = time_call(partial(SavedTranslator, path))
        saved = loading.result
        first_saved = first_call_seconds(saved, beam_sizes)
        records = [
            {**base, "kind": "first_call", "strategy": strategy,
             "in_process_seconds": round(seconds, 3),
             "saved_model_seconds": round(first_saved[strategy], 3),
             "load_saved_model_seconds": round(loading.total, 3)}
            for strategy, seconds in first_in_process.items()
        ]
        greedy = None
        for beam_size in beam_sizes:
            # The two timed alternately, so that load changes hit both alike.
            options = {"beam_size": beam_size, "batch_size": args.batch_size}
            if beam_size > 1:
                options["length_penalty"] = penalty
            ours, theirs = (time_translation(t, sources, **options) for t in (translator, saved))
            same, difference = agreement(ours["results"], theirs["results"])
            speed = (ours["sentences_per_second"], theirs["sentences_per_second"])
            greedy = greedy or speed
            records.append({
                **base, "kind": "throughput", "beam_size": beam_size, "length_penalty": penalty,
                "in_process_sentences_per_second": round(speed[0], 2),
                "saved_model_sentences_per_second": round(speed[1], 2),
                "saved_over_in_process": round(speed[1] / speed[0], 3),
                "in_process_time_over_greedy": round(greedy[0] / speed[0], 3),
                "saved_model_time_over_greedy": round(greedy[1] / speed[1], 3),
                "in_process_warmup_seconds": round(ours["warmup_seconds"], 3),
                "saved_model_warmup_seconds": round(theirs["warmup_seconds"], 3),
                "agreement": same, "max_score_difference": difference,
            })
            print(f"  beam {beam_size}: in-process {speed[0]:,.1f}, SavedModel {speed[1]:,.1f} "
                  f"sentences/s, agreement {same:.1%}")
    if config["model"] == "transformer" and importlib.util.find_spec("ctranslate2"):
        references = [target for _, target in pairs[: len(sources)]]
        records += [
            {**base, "kind": "engine", **r} for r in ctranslate2_speed.engine_speeds(
                args.run, sources, references, beam_sizes, args.batch_size, passes=1)
        ]
    return records


def translation_table(records):
    """The translation records as Markdown tables: first calls, throughput, engines."""
    tables = [
        records_table([r for r in records if r["kind"] == "first_call"], [
            ("model", "model", ""), ("first call of", "strategy", ""),
            ("in-process (s)", "in_process_seconds", ".2f"),
            ("fresh SavedModel (s)", "saved_model_seconds", ".2f"),
        ]),
        records_table([r for r in records if r["kind"] == "throughput"], [
            ("model", "model", ""), ("strategy", lambda r: beam_name(r["beam_size"]), ""),
            ("sentences", "sentences", ","),
            ("in-process sentences/s", "in_process_sentences_per_second", ",.1f"),
            ("SavedModel sentences/s", "saved_model_sentences_per_second", ",.1f"),
            ("SavedModel / in-process", "saved_over_in_process", ".2f"),
            ("time / greedy in-process", "in_process_time_over_greedy", ".2f"),
            ("time / greedy SavedModel", "saved_model_time_over_greedy", ".2f"),
            ("agreement", "agreement", ".1%"),
        ]),
    ]
    engines = [r for r in records if r["kind"] == "engine"]
    if engines:
        tables.append(ctranslate2_speed.engine_table(engines))
    return "\n\n".join(tables)


def run_export(context):
    """Greedy translations/s of the in-process `Translator` and of its reloaded SavedModel.

    Args:
        context: the run's `BenchmarkContext` (the first --models in the first --apis, or --run).

    Returns:
        One JSON record per model.
    """
    args = context.options
    models = context.inference_models("export")
    if not args.run:
        models = models[:1] and [m for m in models if m[1] == args.apis[0]][:1]
    records = []
    for name, api, model, source_tokenizer, target_tokenizer, sources, state in models:
        translator = Translator(model, source_tokenizer, target_tokenizer)
        with tempfile.TemporaryDirectory() as directory:
            export = time_call(partial(export_translator, translator, base_dir=directory,
                                       name=name))
            saved = open_translator(export.result)
            repeats = 1 if args.quick else args.export_repeats
            # Alternate the two so that load changes on a shared machine hit both alike.
            in_process, exported = [], []
            for _ in range(repeats):
                for target, results in ((translator, in_process), (saved, exported)):
                    results.append(time_translation(
                        target, sources, batch_size=args.batch_size
                    )["sentences_per_second"])
        record = {
            "section": "export", "model": name, "api": api, "weights": state,
            "strategy": "greedy", "batch_size": args.batch_size, "sentences": len(sources),
            "in_process_sentences_per_second": round(max(in_process), 2),
            "saved_model_sentences_per_second": round(max(exported), 2),
            "saved_over_in_process": round(max(exported) / max(in_process), 3),
            "repeats": repeats, "export_seconds": round(export.total, 2),
            **context.environment(),
        }
        records.append(record)
        print(f"  {name} {api}: in-process {record['in_process_sentences_per_second']:,.1f}, "
              f"SavedModel {record['saved_model_sentences_per_second']:,.1f} sentences/s "
              f"(ratio {record['saved_over_in_process']:.2f})")
    return records


def export_table(records):
    """The export records as a Markdown table."""
    return records_table(records, [
        ("model", "model", ""), ("API", "api", ""), ("weights", "weights", ""),
        ("sentences", "sentences", ","),
        ("in-process sentences/s", "in_process_sentences_per_second", ",.1f"),
        ("SavedModel sentences/s", "saved_model_sentences_per_second", ",.1f"),
        ("SavedModel / in-process", "saved_over_in_process", ".2f"),
    ])
