"""Tiny untrained translators and run folders for the export and app tests."""

import json
import os
import subprocess
import sys

import keras
import tensorflow as tf

from keras_nmt.inference.translator import Translator
from keras_nmt.models.registry import build_model
from keras_nmt.text import make_tokenizer
from keras_nmt.workshop.run.provenance import record_run_provenance
from keras_nmt.workshop.run.train_config import TrainConfig

SOURCES = ["3rd of March 2021", "12/04/1999", "July 4, 1776", "on the 1st of May"]
TARGETS = ["2021-03-03", "1999-04-12", "1776-07-04", "2000-05-01"]
BAD_INPUTS = ["", "   \t ", b"\xff\xfe\xc3 broken", "x" * 10_000, "ÆØÅ 日本 ☃"]
SMALL = dict(units=16, embedding_dim=8, d_model=16, num_heads=2, ff_dim=16, channels=16,
             max_length=24)
# Two Transformer layers (its default is three) still give per-layer caches, in less export time;
# two ConvS2S layers attend in turn (multi-step attention).
LAYERS = {"transformer": 2, "convs2s": 2}


def make_model(name="lstm", api="functional", seed=0):
    """An untrained tiny model with char tokenizers (exactness needs no training)."""
    source = make_tokenizer("char").build(SOURCES)
    target = make_tokenizer("char").build(TARGETS)
    keras.utils.set_random_seed(seed)
    model = build_model(name, api, source.vocab_size, target.vocab_size,
                        {**SMALL, "num_layers": LAYERS.get(name, 1)})
    ones = tf.ones([1, 3], tf.int32)
    model({"encoder_tokens": ones, "decoder_tokens": ones})
    return model, source, target


def make_translator(name="lstm", api="functional", max_target_length=12, seed=0, **options):
    model, source, target = make_model(name, api, seed)
    options = {"max_beam_size": 2, **options}
    return Translator(model, source, target, max_source_length=20,
                      max_target_length=max_target_length, **options)


def make_run_folder(path, name="lstm", api="functional", record=True):
    """A run folder as apps/train.py writes it, without training; `record=False` leaves out
    its `provenance.json`, as a run written by older code."""
    model, source, target = make_model(name, api)
    path.mkdir(parents=True, exist_ok=True)
    TrainConfig(model=name, api=api, max_length=20, output=str(path), **{
        k: v for k, v in SMALL.items() if k != "max_length"}).to_json(path / "config.json")
    source.save(path / "tokenizers" / "source")
    target.save(path / "tokenizers" / "target")
    model.save(path / "model.keras")
    if record:
        record_run_provenance(path, model=model)
    return path


FRESH_PROCESS = r"""
import json, sys
import tensorflow as tf
import tensorflow_text  # noqa: F401  (registers the tf-text ops the tokenizers use)
def _s(x):
    if isinstance(x, bytes):
        return x.decode("utf-8", "replace")
    if isinstance(x, list):
        return [_s(v) for v in x]
    if isinstance(x, dict):
        return {k: _s(v) for k, v in x.items()}
    return x
requests = json.loads(sys.stdin.read())
out = {}
for path, texts, beams in requests:
    loaded = tf.saved_model.load(path)
    text = tf.constant(texts)
    greedy = loaded.signatures["serving_default"](text=text)
    item = {"greedy": [greedy["translation"].numpy().tolist(), greedy["score"].numpy().tolist()]}
    for beam_size, alpha in beams:
        result = loaded.signatures["beam_search"](
            text=text, beam_size=tf.constant(beam_size), length_penalty=tf.constant(alpha))
        item[f"{beam_size}/{alpha}"] = [
            result["translations"].numpy().tolist(), result["scores"].numpy().tolist()]
    out[path] = item
print("KERAS_NMT_LOADED", "keras_nmt" in sys.modules)
print("KERAS_LOADED", "keras" in sys.modules)
print("RESULT", json.dumps(_s(out)))
"""


def run_fresh_process(requests):
    """Runs the SavedModels in a new Python that imports only tensorflow and tensorflow_text."""
    completed = subprocess.run(
        [sys.executable, "-c", FRESH_PROCESS], input=json.dumps(requests), capture_output=True,
        text=True, timeout=600, env={
            "TF_CPP_MIN_LOG_LEVEL": "2", "PATH": "/usr/bin:/bin",
            # The worker's share of the cores (tests/conftest.py), not one thread per core.
            **{k: v for k, v in os.environ.items() if k.startswith("TF_NUM_")}},
    )
    assert completed.returncode == 0, completed.stderr[-3000:]
    lines = completed.stdout.splitlines()
    assert "KERAS_NMT_LOADED False" in lines
    return json.loads(next(line for line in lines if line.startswith("RESULT "))[7:])


def in_process(translator, texts, beams):
    """The same outputs as `FRESH_PROCESS`, from the in-process Translator."""
    text = tf.constant(texts)
    greedy = translator.serving_default(text)
    item = {"greedy": [[t.decode("utf-8", "replace") for t in greedy["translation"].numpy()],
                       greedy["score"].numpy().tolist()]}
    for beam_size, alpha in beams:
        result = translator.beam_search(text, tf.constant(beam_size), tf.constant(alpha))
        item[f"{beam_size}/{alpha}"] = [
            [[t.decode("utf-8", "replace") for t in row] for row in result["translations"].numpy()],
            result["scores"].numpy().tolist()]
    return item
