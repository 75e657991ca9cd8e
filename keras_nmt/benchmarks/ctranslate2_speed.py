"""TensorFlow against CTranslate2 on one trained Transformer run: sentences/s and BLEU.

Strings in, strings out, tokenizers included, the same sentences: our in-process `Translator`
and the run exported to CTranslate2 (`keras_nmt.export.export_ctranslate2`) in float32, int8
and the other weight types the CPU has kernels for (bfloat16, int8_bfloat16), each with its
default threading (`CTranslate2Translator`). Engines are timed in turn within each pass (load
changes on a shared machine hit all alike), after one warm-up call each; the median pass counts.

`keras-nmt benchmark --only translation --run RUN_DIR` runs it for a Transformer run when
ctranslate2 is installed (`translation_section`).
"""

import tempfile
from functools import partial
from pathlib import Path

from keras_nmt import markdown
from keras_nmt.export.ctranslate2_export import export_ctranslate2
from keras_nmt.inference import CTranslate2Translator, RunDirectory
from keras_nmt.metrics.sacrebleu_scores import corpus_bleu
from keras_nmt.timing import time_in_turn

# Weight types measured when the CPU has them, besides float32 and int8 (on a CPU, int8 is
# int8_float32: int8 weights, float32 activations).
OPTIONAL_QUANTIZATIONS = ("bfloat16", "int8_bfloat16")


def cpu_quantizations():
    """float32, int8 and those of `OPTIONAL_QUANTIZATIONS` this CPU computes in."""
    # Optional heavy dependency: only this benchmark and the export need it.
    import ctranslate2

    supported = ctranslate2.get_supported_compute_types("cpu")
    return ["float32", "int8"] + [q for q in OPTIONAL_QUANTIZATIONS if q in supported]


def engine_speeds(run_dir, sources, references, beam_sizes=(1, 4), batch_size=64,
                  quantizations=None, passes=3, print_fn=print):
    """Sentences/s (median of `passes`) and BLEU per engine and beam size.

    Args:
        run_dir: a Transformer run directory.
        sources, references: the test sentences and their references.
        beam_sizes: 1 is greedy.
        batch_size: sentences per batch, both engines.
        quantizations: the CTranslate2 weight types (default: `cpu_quantizations()`).
        passes: timed passes over all sentences per engine and beam size.
        print_fn: progress lines.

    Returns:
        A list of dicts: `engine` ("tensorflow" or "ctranslate2"), `quantization`, `threads`,
        `beam_size`, `sentences_per_second`, `pass_seconds`, `bleu` and `same_as_tensorflow`
        (fraction of sentences with the same best translation as TensorFlow's).
    """
    quantizations = list(quantizations or cpu_quantizations())
    translators = {("tensorflow", "float32"): RunDirectory.load(run_dir).translator(
        max_beam_size=max(beam_sizes))}
    with tempfile.TemporaryDirectory() as directory:
        for quantization in quantizations:
            path = export_ctranslate2(run_dir, Path(directory) / quantization,
                                      quantization=quantization)
            translators[("ctranslate2", quantization)] = CTranslate2Translator(path)
        records = []
        for beam_size in beam_sizes:
            for translator in translators.values():  # warm-up: tracing, first allocations
                translator.translate_batch(sources[:batch_size], beam_size=beam_size,
                                           batch_size=batch_size)
            timings = dict(zip(translators, time_in_turn(
                [partial(translator.translate_batch, sources, beam_size=beam_size,
                         batch_size=batch_size) for translator in translators.values()],
                repeats=passes,
            ), strict=True))
            reference = [r.text for r in timings[("tensorflow", "float32")].result]
            for (engine, quantization), translator in translators.items():
                timing = timings[(engine, quantization)]
                texts = [r.text for r in timing.result]
                threads = (f"{translator.inter_threads} x {translator.intra_threads}"
                           if engine == "ctranslate2" else "TensorFlow default")
                record = {
                    "engine": engine, "quantization": quantization, "threads": threads,
                    "beam_size": beam_size, "sentences": len(sources),
                    "sentences_per_second": len(sources) / timing.median,
                    "pass_seconds": [round(s, 3) for s in timing.seconds],
                    "bleu": corpus_bleu(texts, references).score,
                    "same_as_tensorflow": sum(a == b for a, b in zip(texts, reference,
                                                                      strict=True)) / len(texts),
                }
                records.append(record)
                print_fn(f"  {engine} {quantization} beam {beam_size}: "
                         f"{record['sentences_per_second']:,.1f} sentences/s, BLEU "
                         f"{record['bleu']:.2f}, same as TensorFlow "
                         f"{record['same_as_tensorflow']:.1%}")
    return records


def engine_table(records):
    """The records of `engine_speeds` as one Markdown table (greedy and beam side by side)."""
    beams = sorted({r["beam_size"] for r in records})
    rows = []
    for key in dict.fromkeys((r["engine"], r["quantization"], r["threads"]) for r in records):
        chosen = {r["beam_size"]: r for r in records
                  if (r["engine"], r["quantization"], r["threads"]) == key}
        engine = "TensorFlow (in-process Translator)" if key[0] == "tensorflow" else (
            f"CTranslate2 {key[1]}")
        rows.append(
            [engine, key[2]]
            + [f"{chosen[b]['sentences_per_second']:,.0f}" for b in beams]
            + [" / ".join(f"{chosen[b]['bleu']:.2f}" for b in beams)]
            + [" / ".join(f"{chosen[b]['same_as_tensorflow']:.1%}" for b in beams)]
        )
    names = ["greedy" if b == 1 else f"beam {b}" for b in beams]
    return markdown.table(
        ["decoder", "threads (batches x threads each)"] + [f"{n} sent/s" for n in names]
        + [f"BLEU {' / '.join(names)}", "same as TensorFlow"],
        rows, align="ll" + "r" * (len(beams) + 2),
    )
