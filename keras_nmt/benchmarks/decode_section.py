"""Benchmark section "decode": sentences/s of greedy and beam search per model."""

from keras_nmt import markdown
from keras_nmt.benchmarks.decode_speed import measure_decode_speed
from keras_nmt.special_ids import PAD_ID


def _source_batches(tokenizer, texts, batch_size):
    batches = []
    for start in range(0, len(texts), batch_size):
        ragged = tokenizer.tokenize(texts[start : start + batch_size])
        batches.append(ragged.to_tensor(default_value=PAD_ID).numpy())
    return batches


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
        batches = _source_batches(source_tokenizer, sources, args.batch_size)
        for beam_size in beam_sizes:
            if beam_size == 1:
                result = measure_decode_speed(model, batches, "greedy")
            else:
                result = measure_decode_speed(model, batches, "beam", beam_size=beam_size)
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
    rows = []
    for r in records:
        ratio = r.get("time_ratio_to_greedy")
        rows.append([
            r["model"], r["api"], r["weights"],
            "greedy" if r["beam_size"] == 1 else f"beam {r['beam_size']}",
            f"{r['sentences_per_second']:,.1f}", f"{r['ms_per_sentence']:.2f}",
            "" if ratio is None else f"{ratio:.2f}", f"{r['mean_output_length']:.1f}",
            f"{r['mean_source_length']:.1f}",
        ])
    return markdown.table(
        ["model", "API", "weights", "strategy", "sentences/s", "ms/sentence", "time / greedy",
         "mean output length", "mean source length"],
        rows, align="llllrrrrr",
    )
