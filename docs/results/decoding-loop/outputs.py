"""Decoding outputs of trained runs, recorded to compare two checkouts bit for bit.

    cd CHECKOUT && python PATH/TO/outputs.py OUT.npz RUNS_DIR

For each run folder in RUNS_DIR (a folder whose path names "dates", and a run named ctc, get
200 built-in test dates; the others the first 200 spa-eng test sentences): the in-process
Translator's texts and scores (greedy; beam 4 with n-best 4; beam 4 with length penalty 0.6;
greedy with attention, its weights too), and `decode` on the model itself, eager and in a
tf.function, for the first 64 sentences, every field of its DecodeResult (greedy, with and
without attention; beam 4; beam 4 with length penalty 0.6, coverage 0.2, n-best 3 and
attention; beam 4 with "average" normalization and n-best 4; beam 1). Sampling is left out: it
changed on purpose. The keras_nmt imported is the current folder's (checked).
"""
import sys
from pathlib import Path

sys.path.insert(0, ".")
import keras_nmt  # noqa: E402

open_translator = keras_nmt.open_translator  # starts TensorFlow quietly, in both checkouts
import keras  # noqa: E402
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

from keras_nmt.workshop.corpora.builtin import builtin_pairs  # noqa: E402
from keras_nmt.workshop.corpora.corpus import read_tsv  # noqa: E402

try:  # the checkout after the change
    from keras_nmt.decoding.loop import decode
except ImportError:  # before it
    from keras_nmt.decoding.api import decode

assert keras_nmt.__file__.startswith(str(Path.cwd())), keras_nmt.__file__
RUNS = sorted(p for p in Path(sys.argv[2]).iterdir() if (p / "model.keras").exists())
SPA = [s for s, _ in read_tsv("/work/shared/data/spa-eng.test.tsv").pairs][:200]
DATES = [s for s, _ in builtin_pairs("dates", "test", size=200, seed=0)]
TRANSLATOR_CASES = {
    "greedy": {},
    "beam4": {"beam_size": 4, "n_best": 4},
    "beam4_lp06": {"beam_size": 4, "length_penalty": 0.6},
    "attention": {"return_attention": True},
}
DECODE_CASES = {
    "greedy": ("greedy", {}),
    "greedy_att": ("greedy", {"return_attention": True}),
    "beam4": ("beam", {"beam_size": 4}),
    "beam4_cov": ("beam", {"beam_size": 4, "length_penalty": 0.6, "coverage_penalty": 0.2,
                           "n_best": 3, "return_attention": True}),
    "beam4_avg": ("beam", {"beam_size": 4, "normalization": "average", "n_best": 4}),
    "beam1": ("beam", {"beam_size": 1}),
}
out = {}


def save(key, result):
    for field, value in zip(result._fields, result, strict=True):
        if value is not None:
            out[f"{key}/{field}"] = np.asarray(keras.ops.convert_to_numpy(value))


for run in RUNS:
    translator = open_translator(run)
    with_dates = run.name == "ctc" or "dates" in str(run)
    texts = DATES if with_dates else SPA
    for case, options in TRANSLATOR_CASES.items():
        if case == "attention" and run.name == "ctc":
            continue
        results = translator.translate_batch(texts, batch_size=64, **options)
        out[f"{run.name}/T/{case}/texts"] = np.array([t for r in results for t in r.texts])
        out[f"{run.name}/T/{case}/scores"] = np.array([s for r in results for s in r.scores],
                                                      np.float32)
        if case == "attention":
            out[f"{run.name}/T/{case}/weights"] = np.concatenate(
                [r.weights.reshape(-1) for r in results])
    ids, _ = translator.source_ids(tf.constant(texts[:64]))
    model = translator.model
    for case, (strategy, options) in DECODE_CASES.items():
        if run.name == "ctc" and "coverage_penalty" in options:
            continue
        save(f"{run.name}/D/{case}", decode(model, ids, strategy, **options))
        graph = tf.function(lambda x, m=model, s=strategy, o=options: decode(m, x, s, **o),
                            input_signature=[tf.TensorSpec([None, None], tf.int32)],
                            autograph=False)
        save(f"{run.name}/D/{case}/graph", graph(ids))
    print(run.name, flush=True)
np.savez(sys.argv[1], **out)
print(len(out), "arrays")
