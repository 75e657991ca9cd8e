"""Benchmark section "decode": sentences/s of greedy and beam search per model."""

import tensorflow as tf

from keras_nmt.benchmarks.speed import (
    beam_name,
    records_table,
    source_batches,
    time_decoding,
)
from keras_nmt.decoding import decode


def measure_decode_speed(model, batches, strategy="greedy", **options):
    """Sentences/s of `decode` in one `tf.function` traced once (`(None, None)` int32 input).

    The first batch is decoded once untimed (tracing, graph optimization), then all are timed.

    Args:
        model: a model keeping the inference contract.
        batches: int32 `(batch, src_len)` source id arrays padded with 0 (`source_batches`).
        strategy: `"greedy"` or `"beam"`.
        **options: more `decode` options (`beam_size`, `max_length`, ...).

    Returns:
        `speed.time_decoding`'s dict.
    """

    @tf.function(input_signature=[tf.TensorSpec([None, None], tf.int32)], autograph=False)
    def run(ids):  # plain graph code: nothing for AutoGraph to convert
        result = decode(model, ids, strategy, **options)
        return result.lengths if strategy != "beam" else result.lengths[:, 0]

    return time_decoding(lambda ids: run(tf.constant(ids, tf.int32)), batches, batches[:1])


def run_decode(context):
    """Sentences/s of greedy and beam search per model (untrained, or the run of --run).

    Args:
        context: the run's `BenchmarkContext`.

    Returns:
        One JSON record per model x beam size.
    """
    args = context.options
    records = []
    beam_sizes = [1, 2] if args.quick else args.beam_sizes
    for name, api, model, source_tokenizer, _, sources, state in context.inference_models("decode"):
        batches = source_batches(source_tokenizer.tokenize(sources).to_list(), args.batch_size)
        for beam_size in beam_sizes:
            options = {"beam_size": beam_size} if beam_size > 1 else {}
            result = measure_decode_speed(model, batches, "beam" if options else "greedy",
                                          **options)
            record = {
                "section": "decode", "model": name, "api": api, "weights": state,
                "strategy": "greedy" if beam_size == 1 else "beam", "beam_size": beam_size,
                "batch_size": args.batch_size,
                "sentences_per_second": round(result["sentences_per_second"], 2),
                "ms_per_sentence": round(1000 / result["sentences_per_second"], 3),
                "sentences": result["sentences"], "seconds": round(result["seconds"], 3),
                "mean_output_length": round(result["mean_output_length"], 2),
                "max_output_length": result["max_output_length"],
                "mean_source_length": round(
                    float(sum((b != 0).sum() for b in batches)) / result["sentences"], 2
                ),
                "warmup_seconds": round(result["warmup_seconds"], 3),
                **context.environment(),
            }
            records.append(record)
            print(f"  {name} {api} beam {beam_size}: {record['sentences_per_second']:,.1f} "
                  f"sentences/s, mean output length {record['mean_output_length']}")
    greedy = {(r["model"], r["api"]): r for r in records if r["beam_size"] == 1}
    for record in records:
        base = greedy.get((record["model"], record["api"]))
        if base:
            record["time_ratio_to_greedy"] = round(
                record["ms_per_sentence"] / base["ms_per_sentence"], 3
            )
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
