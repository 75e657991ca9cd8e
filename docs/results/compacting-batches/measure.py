"""Plain decoding loops against the compacting ones, interleaved in one process.

Two in-process `Translator`s of the same run folder: A's graphs are traced with the plain
loop (`COMPACT = False` in `keras_nmt.decoding.loop`), B's with row compaction
(`keras_nmt.decoding.compaction`). Each is warmed
up (one untimed pass, which traces its graph), then timed passes alternate A B A B ...; the
medians are compared. Also checks that both give the same texts and scores, and counts the
row-steps each loop pays for (from the output lengths: the plain loop runs every row of a batch
until its longest output ends).

    PYTHONPATH=. python docs/results/compacting-batches/measure.py RUN_FOLDER \
        --data /work/shared/data/spa-eng.test.tsv --rounds 5 --output result.json
"""

import argparse
import json
import os
import statistics
import time


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("run")
    parser.add_argument("--data", required=True)
    parser.add_argument("--sentences", type=int, default=2000)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--threads", type=int, default=1, help="intra-op threads (0: default)")
    parser.add_argument("--beam", type=int, default=0, help="also time beam search of this size")
    parser.add_argument("--output")
    args = parser.parse_args()

    import tensorflow as tf

    if args.threads:
        tf.config.threading.set_intra_op_parallelism_threads(args.threads)
        tf.config.threading.set_inter_op_parallelism_threads(1)
    from keras_nmt.decoding import loop
    from keras_nmt.workshop.corpora.corpus import read_tsv
    from keras_nmt.workshop.translators.open_translator import open_translator

    texts = [source for source, _ in read_tsv(args.data).pairs][: args.sentences]
    modes = {"greedy": {}}
    if args.beam:
        modes[f"beam{args.beam}"] = {"beam_size": args.beam}
    translators = {}
    for name, compact in (("A", False), ("B", True)):
        loop.COMPACT = compact
        translators[name] = open_translator(args.run)
        for options in modes.values():  # traces each mode's graph with the switch as set
            translators[name].translate_batch(
                texts[: args.batch_size], batch_size=args.batch_size, **options
            )
    loop.COMPACT = True  # the graphs are traced: no longer read
    outputs, seconds = {}, {(name, mode): [] for name in translators for mode in modes}
    for mode, options in modes.items():
        for name, translator in translators.items():  # untimed warm-up pass
            outputs[name, mode] = translator.translate_batch(
                texts, batch_size=args.batch_size, **options
            )
    for _ in range(args.rounds):
        for mode, options in modes.items():
            for name, translator in translators.items():
                start = time.perf_counter()
                results = translator.translate_batch(texts, batch_size=args.batch_size, **options)
                seconds[name, mode].append(time.perf_counter() - start)
                same = [(r.texts, r.scores) for r in results] == [
                    (r.texts, r.scores) for r in outputs[name, mode]
                ]
                assert same, f"{name} {mode}: outputs changed between passes"

    record = {
        "sentences": len(texts),
        "batch_size": args.batch_size,
        "intra_op_threads": args.threads or "default",
        "load_average_end": os.getloadavg(),
        "modes": {},
    }
    for mode in modes:
        a, b = outputs["A", mode], outputs["B", mode]
        texts_same = sum(x.texts == y.texts for x, y in zip(a, b, strict=True))
        scores_same = sum(x.scores == y.scores for x, y in zip(a, b, strict=True))
        median_a = statistics.median(seconds["A", mode])
        median_b = statistics.median(seconds["B", mode])
        record["modes"][mode] = {
            "seconds_A": seconds["A", mode],
            "seconds_B": seconds["B", mode],
            "sentences_per_second_A": len(texts) / median_a,
            "sentences_per_second_B": len(texts) / median_b,
            "speedup": median_a / median_b,
            "same_texts": texts_same,
            "same_scores": scores_same,
        }
    record["row_steps"] = row_steps(translators["A"], texts, args.batch_size)
    print(json.dumps(record, indent=1))
    if args.output:
        with open(args.output, "w") as file:
            json.dump(record, file, indent=1)


def row_steps(translator, texts, batch_size):
    """Rows x steps of each loop over the batches `translate_batch` makes, from the outputs.

    The plain loop runs every row of a batch until the batch's longest output ends; the
    compacting loop drops finished rows when the batch at least halves (whole blocks of 8 rows
    and the partial block, see `keras_nmt.decoding.compaction`);
    `output_tokens` (END included) is the least any loop pays.
    """
    import tensorflow as tf

    from keras_nmt.decoding.length_order import length_order

    @tf.function(input_signature=[tf.TensorSpec([None], tf.string)])
    def lengths_of(text):
        ids, _ = translator.source_ids(text)
        return translator._greedy(ids).lengths

    order = length_order(texts)
    plain = compacting = tokens = 0
    for start in range(0, len(order), batch_size):
        chunk = [texts[i] for i in order[start : start + batch_size]]
        lengths = [int(x) for x in lengths_of(tf.constant(chunk)).numpy()]
        tokens += sum(lengths)
        plain += len(lengths) * max(lengths)
        rows = len(lengths)
        blocks = rows - rows % 8  # the compacting loop keeps the partial block whole
        for t in range(max(lengths)):
            compacting += rows
            remaining = sum(length > t + 1 for length in lengths[:blocks])
            size = -(-remaining // 8) * 8 + len(lengths) - blocks
            if max(lengths) > t + 1 and 2 * size <= rows:
                rows = size
    return {"plain_loop": plain, "compacting_loop": compacting, "output_tokens": tokens,
            "plain_per_token": plain / tokens, "compacting_per_token": compacting / tokens}


if __name__ == "__main__":
    main()
