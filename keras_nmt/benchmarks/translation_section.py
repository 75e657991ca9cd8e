"""Benchmark sections "translation" and "export": strings in and out, in-process vs SavedModel.

Section "export" (`run_export`): greedy sentences/s of the in-process `Translator` of each model
(untrained, or the run of --run) and of its reloaded SavedModel, alternately.

Section "translation" (`run_translation`) needs a trained model (``--run RUN_DIR``): untrained
models decode to the length cap, which says nothing about translation speed. Strings in and
strings out, tokenizers included, on the spa-eng test sentences: the first call of each
strategy on a fresh in-process `Translator` and on a freshly loaded SavedModel
(`first_call_seconds`), then sentences/s per beam size (`translation_speeds`, warm-up batch
timed apart), each translator's time per sentence against its greedy time, and the agreement of
the two translators' outputs. For a Transformer, when CTranslate2 is installed, the run
exported to CTranslate2 (float32, int8 and what the CPU has) beside the in-process
`Translator`, with BLEU beside each speed (`keras_nmt.benchmarks.ctranslate2_speed`).
`translation_report` measures all of it on one run directory.
"""

import importlib.util
import json
import tempfile
from functools import partial
from pathlib import Path

from keras_nmt import markdown
from keras_nmt.benchmarks import ctranslate2_speed
from keras_nmt.benchmarks.benchmark_context import TEST_FILE
from keras_nmt.data import read_tsv
from keras_nmt.decoding import DecodingOptions
from keras_nmt.decoding.decoding_options import DEFAULT_LENGTH_PENALTY
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


def translation_speeds(translator, saved, texts, batch_sizes=(64,), beam_sizes=(1, 4, 8),
                       length_penalty=DEFAULT_LENGTH_PENALTY):
    """In-process vs SavedModel sentences/s per beam size and batch size.

    The two translators are timed alternately on each setting, so that load changes on a shared
    machine hit both alike.

    Returns:
        A list of dicts: `beam_size`, `batch_size`, `in_process` and `saved_model`
        (sentences/s), `in_process_warmup_seconds`, `saved_model_warmup_seconds`,
        `agreement` (fraction of sentences with equal outputs) and `max_score_difference`.
    """
    records = []
    for batch_size in batch_sizes:
        for beam_size in beam_sizes:
            options = dict(beam_size=beam_size, batch_size=batch_size)
            if beam_size > 1:
                options["length_penalty"] = length_penalty
            ours = time_translation(translator, texts, **options)
            theirs = time_translation(saved, texts, **options)
            same, difference = agreement(ours["results"], theirs["results"])
            records.append({
                "beam_size": beam_size, "batch_size": batch_size,
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


def translation_report(run_dir, texts, batch_sizes=(64,), beam_sizes=(1, 4, 8),
        length_penalty=DEFAULT_LENGTH_PENALTY):
    """Everything above on one run directory (exported to a temporary directory)."""
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
            translator, saved, texts, batch_sizes, beam_sizes, length_penalty
        )
    return report


def run_translation(context):
    """Translation speed of the run of --run (skipped with a message without one).

    Args:
        context: the run's `BenchmarkContext` (--run, --data-dir, --decode-sentences,
            --beam-sizes, --batch-size).

    Returns:
        JSON records: one per signature's first call (``kind`` "first_call"), one per beam
        size (``kind`` "throughput"), and with CTranslate2 one per engine and beam size
        (``kind`` "engine": `ctranslate2_speed.engine_speeds`).
    """
    args = context.options
    if not args.run:
        print("translation: skipped, needs a trained model: --run RUN_DIR (apps/train.py)")
        return []
    path = Path(args.data_dir) / TEST_FILE
    if not path.exists():
        print(f"translation: skipped, {path} not found (pass --data-dir DIR)")
        return []
    pairs = read_tsv(path, source_column=1).pairs
    sources = context.test_sources(pairs)
    config = json.loads((Path(args.run) / CONFIG_FILE).read_text())
    beam_sizes = sorted({1, *args.beam_sizes})
    report = translation_report(
        args.run, sources, batch_sizes=(args.batch_size,), beam_sizes=beam_sizes,
        length_penalty=DecodingOptions().length_penalty,
    )
    base = {"section": "translation", "model": config["model"], "api": config["api"],
            "run": str(args.run), "sentences": len(sources), "batch_size": args.batch_size,
            **context.environment()}
    records = [
        {**base, "kind": "first_call", "strategy": strategy,
         "in_process_seconds": round(seconds, 3),
         "saved_model_seconds": round(report["first_call_saved_model"][strategy], 3),
         "load_saved_model_seconds": round(report["load_saved_model_seconds"], 3)}
        for strategy, seconds in report["first_call_in_process"].items()
    ]
    greedy = next(r for r in report["translation"] if r["beam_size"] == 1)
    for r in report["translation"]:
        records.append({
            **base, "kind": "throughput", "beam_size": r["beam_size"],
            "length_penalty": DecodingOptions().length_penalty,
            "in_process_sentences_per_second": round(r["in_process"], 2),
            "saved_model_sentences_per_second": round(r["saved_model"], 2),
            "saved_over_in_process": round(r["saved_model"] / r["in_process"], 3),
            "in_process_time_over_greedy": round(greedy["in_process"] / r["in_process"], 3),
            "saved_model_time_over_greedy": round(greedy["saved_model"] / r["saved_model"], 3),
            "in_process_warmup_seconds": round(r["in_process_warmup_seconds"], 3),
            "saved_model_warmup_seconds": round(r["saved_model_warmup_seconds"], 3),
            "agreement": r["agreement"], "max_score_difference": r["max_score_difference"],
        })
        print(f"  beam {r['beam_size']}: in-process {r['in_process']:,.1f}, SavedModel "
              f"{r['saved_model']:,.1f} sentences/s, agreement {r['agreement']:.1%}")
    if config["model"] == "transformer" and importlib.util.find_spec("ctranslate2"):
        references = [target for _, target in pairs[: len(sources)]]
        records += [
            {**base, "kind": "engine", **r} for r in ctranslate2_speed.engine_speeds(
                args.run, sources, references, beam_sizes, args.batch_size, passes=1)
        ]
    return records


def translation_table(records):
    """The translation records as Markdown tables: first calls, throughput, engines."""
    first = [r for r in records if r["kind"] == "first_call"]
    engines = [r for r in records if r["kind"] == "engine"]
    speed = [r for r in records if r["kind"] == "throughput"]
    first_rows = [[r["model"], r["strategy"], f"{r['in_process_seconds']:.2f}",
                   f"{r['saved_model_seconds']:.2f}"] for r in first]
    speed_rows = [
        [r["model"], "greedy" if r["beam_size"] == 1 else f"beam {r['beam_size']}",
         f"{r['sentences']:,}", f"{r['in_process_sentences_per_second']:,.1f}",
         f"{r['saved_model_sentences_per_second']:,.1f}", f"{r['saved_over_in_process']:.2f}",
         f"{r['in_process_time_over_greedy']:.2f}", f"{r['saved_model_time_over_greedy']:.2f}",
         f"{r['agreement']:.1%}"]
        for r in speed
    ]
    tables = [
        markdown.table(["model", "first call of", "in-process (s)", "fresh SavedModel (s)"],
                       first_rows, align="llrr"),
        markdown.table(["model", "strategy", "sentences", "in-process sentences/s",
                        "SavedModel sentences/s", "SavedModel / in-process",
                        "time / greedy in-process", "time / greedy SavedModel", "agreement"],
                       speed_rows, align="llrrrrrrr"),
    ]
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
    rows = [
        [r["model"], r["api"], r["weights"], f"{r['sentences']:,}",
         f"{r['in_process_sentences_per_second']:,.1f}",
         f"{r['saved_model_sentences_per_second']:,.1f}", f"{r['saved_over_in_process']:.2f}"]
        for r in records
    ]
    return markdown.table(
        ["model", "API", "weights", "sentences", "in-process sentences/s",
         "SavedModel sentences/s", "SavedModel / in-process"],
        rows, align="lllrrrr",
    )
