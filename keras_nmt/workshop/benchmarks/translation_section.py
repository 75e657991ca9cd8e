"""Benchmark sections "decode", "export" and "translation" (the command's help describes them),
and `engine_speeds`: TensorFlow against CTranslate2 on one trained Transformer run.

"translation" runs `engine_speeds` for a Transformer run when ctranslate2 is installed: our
in-process `Translator` and the run exported to CTranslate2 in float32, int8 and the other weight
types the CPU has kernels for, each with its default threading, timed in turn within each pass
(load changes on a shared machine hit all alike) after one warm-up call each; the median pass
counts, with BLEU beside each speed.
"""

import importlib.util
import json
import tempfile
from functools import partial
from pathlib import Path

import tensorflow as tf

from keras_nmt.decoding.decoding_options import DecodingOptions
from keras_nmt.decoding.loop import decode
from keras_nmt.inference.translator import Translator
from keras_nmt.metrics.sacrebleu_scores import corpus_bleu
from keras_nmt.workshop import markdown
from keras_nmt.workshop.benchmarks.speed import (
    beam_name,
    records_table,
    source_batches,
    time_decoding,
)
from keras_nmt.workshop.run.run_folder import CONFIG_FILE, RunFolder
from keras_nmt.workshop.timing import time_call, time_in_turn
from keras_nmt.workshop.translators.ctranslate2_export import export_ctranslate2
from keras_nmt.workshop.translators.ctranslate2_translator import CTranslate2Translator
from keras_nmt.workshop.translators.export_translator import export_translator
from keras_nmt.workshop.translators.formats import CTRANSLATE2_MODELS
from keras_nmt.workshop.translators.open_translator import open_translator
from keras_nmt.workshop.translators.saved_translator import SavedTranslator

FIRST_CALL_TEXT = "Tom no sabe dónde vive Mary."
# CTranslate2 weight types measured when the CPU has them, besides float32 and int8 (on a CPU,
# int8 is int8_float32: int8 weights, float32 activations).
OPTIONAL_QUANTIZATIONS = ("bfloat16", "int8_bfloat16")


def _graph_decode(model, strategy, options):
    """`ids -> best lengths` of `decode` in one `tf.function` traced once for every shape (the
    first batch, decoded untimed, holds the tracing)."""

    @tf.function(input_signature=[tf.TensorSpec([None, None], tf.int32)], autograph=False)
    def lengths(ids):  # plain graph code: nothing for AutoGraph to convert
        return decode(model, ids, strategy, **options).best().lengths

    return lambda ids: lengths(tf.constant(ids, tf.int32))


def run_decode(context):
    """Sentences/s of greedy and beam search: one record per model x beam size."""
    args = context.options
    records = []
    for name, api, model, source_tokenizer, _, sources, state in context.inference_models("decode"):
        batches = source_batches(source_tokenizer.tokenize(sources).to_list(), args.batch_size)
        for beam_size in args.beam_sizes:
            options = {"beam_size": beam_size} if beam_size > 1 else {}
            strategy = "beam" if options else "greedy"
            result = time_decoding(_graph_decode(model, strategy, options), batches, batches[:1])
            records.append({
                "section": "decode", "model": name, "api": api, "weights": state,
                "strategy": strategy, "beam_size": beam_size, "batch_size": args.batch_size,
                "sentences_per_second": round(result["sentences_per_second"], 2),
                "ms_per_sentence": round(1000 / result["sentences_per_second"], 3),
                "sentences": result["sentences"], "seconds": round(result["seconds"], 3),
                "mean_output_length": round(result["mean_output_length"], 2),
                "max_output_length": result["max_output_length"],
                "mean_source_length": round(
                    float(sum((b != 0).sum() for b in batches)) / result["sentences"], 2),
                "warmup_seconds": round(result["warmup_seconds"], 3),
                **context.environment(),
            })
            print(f"  {name} {api} beam {beam_size}: {records[-1]['sentences_per_second']:,.1f} "
                  f"sentences/s, mean output length {records[-1]['mean_output_length']}")
    greedy = {(r["model"], r["api"]): r for r in records if r["beam_size"] == 1}
    for record in records:
        base = greedy.get((record["model"], record["api"]))
        if base:
            record["time_ratio_to_greedy"] = round(
                record["ms_per_sentence"] / base["ms_per_sentence"], 3)
    return records


def decode_table(records):
    """The decode records as a Markdown table."""
    return records_table(records, [
        ("model", "model", ""), ("API", "api", ""), ("weights", "weights", ""),
        ("strategy", lambda r: beam_name(r["beam_size"]), ""),
        ("sentences/s", "sentences_per_second", ",.1f"), ("ms/sentence", "ms_per_sentence", ".2f"),
        ("time / greedy", lambda r: f"{r['time_ratio_to_greedy']:.2f}"
         if r.get("time_ratio_to_greedy") is not None else "", "r"),
        ("mean output length", "mean_output_length", ".1f"),
        ("mean source length", "mean_source_length", ".1f"),
    ])


def time_translation(translator, texts, batch_size=64, **options):
    """Sentences/s of `translator.translate_batch(texts, batch_size, **options)` after one
    warm-up batch (timed on its own).

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
    return {"sentences_per_second": len(texts) / timing.total, "seconds": timing.total,
            "warmup_seconds": timing.warmup_seconds, "sentences": len(texts),
            "results": timing.result}


def run_export(context):
    """Greedy sentences/s of the in-process `Translator` and of its reloaded SavedModel: one
    record per model (the first --models in the first --apis, or the run of --run)."""
    args = context.options
    models = context.inference_models("export")
    if not args.run:
        models = models[:1] and [m for m in models if m[1] == args.apis[0]][:1]
    records = []
    repeats = args.export_repeats
    for name, api, model, source_tokenizer, target_tokenizer, sources, state in models:
        translator = Translator(model, source_tokenizer, target_tokenizer)
        with tempfile.TemporaryDirectory() as directory:
            export = time_call(partial(export_translator, translator, base_dir=directory,
                                       name=name))
            saved = open_translator(export.result)
            # Alternately, so that load changes on a shared machine hit both alike; the best.
            speeds = [max(column) for column in zip(*[
                [time_translation(t, sources, batch_size=args.batch_size)["sentences_per_second"]
                 for t in (translator, saved)] for _ in range(repeats)], strict=True)]
        records.append({
            "section": "export", "model": name, "api": api, "weights": state,
            "strategy": "greedy", "batch_size": args.batch_size, "sentences": len(sources),
            "in_process_sentences_per_second": round(speeds[0], 2),
            "saved_model_sentences_per_second": round(speeds[1], 2),
            "saved_over_in_process": round(speeds[1] / speeds[0], 3),
            "repeats": repeats, "export_seconds": round(export.total, 2),
            **context.environment(),
        })
        print(f"  {name} {api}: in-process {speeds[0]:,.1f}, SavedModel {speeds[1]:,.1f} "
              f"sentences/s (ratio {records[-1]['saved_over_in_process']:.2f})")
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


def first_call_seconds(translator, beam_sizes):
    """`{"greedy": s, "beam 4": s, ..., "attention": s}`: the first `translate_batch` call of
    each strategy on a fresh translator (a `SavedTranslator` just loaded: its signatures' first
    calls; a fresh `Translator`: its tracing and first run)."""
    calls = [(beam_name(k), {"beam_size": k}) for k in beam_sizes]
    calls.append(("attention", {"return_attention": True}))
    return {name: time_call(partial(translator.translate_batch, [FIRST_CALL_TEXT],
                                    **options)).total
            for name, options in calls}


def run_translation(context):
    """Translation speed of the run of --run (skipped with a message without one).

    Returns:
        JSON records: one per signature's first call (`kind` "first_call"), one per beam size
        (`kind` "throughput"), and with CTranslate2 one per engine and beam size (`kind`
        "engine": `engine_speeds`).
    """
    args = context.options
    if not args.run:
        print("translation: skipped, needs a trained model: --run RUN_FOLDER (apps/train.py)")
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
    translator = RunFolder.load(args.run).translator(max_beam_size=max(beam_sizes))
    first_in_process = first_call_seconds(translator, beam_sizes)
    with tempfile.TemporaryDirectory() as directory:
        path = export_translator(translator, base_dir=directory, name="model")
        loading = time_call(partial(SavedTranslator, path))
        first_saved = first_call_seconds(loading.result, beam_sizes)
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
            ours, theirs = (time_translation(t, sources, **options)
                            for t in (translator, loading.result))
            same = sum(a.texts == b.texts for a, b in zip(
                ours["results"], theirs["results"], strict=True)) / max(1, len(sources))
            difference = max((abs(x - y) for a, b in zip(ours["results"], theirs["results"],
                                                         strict=True)
                              for x, y in zip(a.scores, b.scores, strict=True)), default=0.0)
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
    if config["model"] not in CTRANSLATE2_MODELS:
        print(f"  CTranslate2 engines: not measured (a {config['model']} model: CTranslate2 runs "
              "Transformers only)")
    elif importlib.util.find_spec("ctranslate2"):
        references = [target for _, target in pairs[: len(sources)]]
        records += [{**base, "kind": "engine", **r} for r in engine_speeds(
            args.run, sources, references, beam_sizes, args.batch_size, passes=1)]
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
        tables.append(engine_table(engines))
    return "\n\n".join(tables)


def cpu_quantizations():
    """float32, int8 and those of `OPTIONAL_QUANTIZATIONS` this CPU computes in."""
    # Optional heavy dependency: only this benchmark and the export need it.
    import ctranslate2

    supported = ctranslate2.get_supported_compute_types("cpu")
    return ["float32", "int8"] + [q for q in OPTIONAL_QUANTIZATIONS if q in supported]


def engine_speeds(run_dir, sources, references, beam_sizes=(1, 4), batch_size=64,
                  quantizations=None, passes=3, print_fn=print):
    """Sentences/s (median of `passes`) and BLEU per engine and beam size (module docstring).

    Args:
        run_dir: a Transformer run folder; `sources`, `references`: the test sentences.
        beam_sizes, batch_size: of both engines (beam size 1 is greedy).
        quantizations: the CTranslate2 weight types (default: `cpu_quantizations()`).
        passes: timed passes over all sentences per engine and beam size.

    Returns:
        A list of dicts: `engine` ("tensorflow" or "ctranslate2"), `quantization`, `threads`,
        `beam_size`, `sentences_per_second`, `pass_seconds`, `bleu` and `same_as_tensorflow`
        (fraction of sentences with the same best translation as TensorFlow's).
    """
    translators = {("tensorflow", "float32"): RunFolder.load(run_dir).translator(
        max_beam_size=max(beam_sizes))}
    with tempfile.TemporaryDirectory() as directory:
        for quantization in list(quantizations or cpu_quantizations()):
            path = export_ctranslate2(run_dir, Path(directory) / quantization,
                                      quantization=quantization)
            translators[("ctranslate2", quantization)] = CTranslate2Translator(path)
        records = []
        for beam_size in beam_sizes:
            calls = [partial(translator.translate_batch, sources, beam_size=beam_size,
                             batch_size=batch_size) for translator in translators.values()]
            for translator in translators.values():  # warm-up: tracing, first allocations
                translator.translate_batch(sources[:batch_size], beam_size=beam_size,
                                           batch_size=batch_size)
            timings = dict(zip(translators, time_in_turn(calls, repeats=passes), strict=True))
            reference = [r.text for r in timings[("tensorflow", "float32")].result]
            for (engine, quantization), translator in translators.items():
                timing = timings[(engine, quantization)]
                texts = [r.text for r in timing.result]
                records.append({
                    "engine": engine, "quantization": quantization,
                    "threads": f"{translator.inter_threads} x {translator.intra_threads}"
                    if engine == "ctranslate2" else "TensorFlow default",
                    "beam_size": beam_size, "sentences": len(sources),
                    "sentences_per_second": len(sources) / timing.median,
                    "pass_seconds": [round(s, 3) for s in timing.seconds],
                    "bleu": corpus_bleu(texts, references).score,
                    "same_as_tensorflow": sum(a == b for a, b in zip(
                        texts, reference, strict=True)) / len(texts),
                })
                print_fn(f"  {engine} {quantization} beam {beam_size}: "
                         f"{records[-1]['sentences_per_second']:,.1f} sentences/s, BLEU "
                         f"{records[-1]['bleu']:.2f}, same as TensorFlow "
                         f"{records[-1]['same_as_tensorflow']:.1%}")
    return records


def engine_table(records):
    """The records of `engine_speeds` as one Markdown table (greedy and beam side by side)."""
    beams = sorted({r["beam_size"] for r in records})
    rows = []
    for key in dict.fromkeys((r["engine"], r["quantization"], r["threads"]) for r in records):
        chosen = {r["beam_size"]: r for r in records
                  if (r["engine"], r["quantization"], r["threads"]) == key}
        rows.append(
            ["TensorFlow (in-process Translator)" if key[0] == "tensorflow"
             else f"CTranslate2 {key[1]}", key[2]]
            + [f"{chosen[b]['sentences_per_second']:,.0f}" for b in beams]
            + [" / ".join(f"{chosen[b][field]:{spec}}" for b in beams)
               for field, spec in (("bleu", ".2f"), ("same_as_tensorflow", ".1%"))]
        )
    names = [beam_name(b) for b in beams]
    return markdown.table(
        ["decoder", "threads (batches x threads each)"] + [f"{n} sent/s" for n in names]
        + [f"BLEU {' / '.join(names)}", "same as TensorFlow"],
        rows, align="ll" + "r" * (len(beams) + 2),
    )
