"""Benchmark section "translation": a trained run, in-process vs SavedModel, greedy and beam (#18).

Strings in and strings out, tokenizers included, on the spa-eng test sentences: the first call
of each strategy on a fresh in-process `Translator` and on a freshly loaded SavedModel, then
sentences/s per beam size (warm-up batch timed apart), each translator's time per sentence
against its greedy time, and the agreement of the two translators' outputs. For a Transformer,
when CTranslate2 is installed, the run exported to CTranslate2 (float32, int8 and what the CPU
has) beside the in-process `Translator`, with BLEU beside each speed
(`keras_nmt.benchmarks.ctranslate2_speed`). Needs a trained model (``--run RUN_DIR``): untrained
models decode to the length cap, which says nothing about translation speed.
"""

import importlib.util
import json
from pathlib import Path

from keras_nmt import markdown
from keras_nmt.benchmarks import ctranslate2_speed, translation_speed
from keras_nmt.benchmarks.benchmark_context import TEST_FILE
from keras_nmt.data import read_tsv
from keras_nmt.decoding import DecodingOptions
from keras_nmt.inference.run_directory import CONFIG_FILE


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
    report = translation_speed.run(
        args.run, sources, batch_sizes=(args.batch_size,), beam_sizes=beam_sizes,
        length_penalty=DecodingOptions().length_penalty, profile=False, sort_options=(True,),
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
