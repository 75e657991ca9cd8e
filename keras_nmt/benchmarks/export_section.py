"""Benchmark section "export": SavedModel vs in-process Translator translations/s (greedy)."""

import tempfile
from functools import partial

from keras_nmt import markdown
from keras_nmt.benchmarks.translation_speed import time_translation
from keras_nmt.export import export_translator
from keras_nmt.inference import Translator, open_translator
from keras_nmt.timing import time_call


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
