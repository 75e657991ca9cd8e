"""CTranslate2 export: the converted Transformer decodes our tokens and log-probabilities."""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import keras
import numpy as np
import pytest
import tensorflow as tf

from keras_nmt.decoding.decoding_options import GREEDY
from keras_nmt.decoding.length_order import call_sizes
from keras_nmt.decoding.loop import decode
from keras_nmt.models.registry import build_model
from keras_nmt.special_ids import END_ID, PAD_ID, START_ID
from keras_nmt.text import make_tokenizer
from keras_nmt.workshop.corpora.builtin import builtin_pairs
from keras_nmt.workshop.run.provenance import record_run_provenance
from keras_nmt.workshop.run.train_config import TrainConfig
from keras_nmt.workshop.translators.ctranslate2_translator import CTranslate2Translator
from keras_nmt.workshop.translators.open_translator import open_translator
from tests.export.helpers import make_run_folder

ctranslate2 = pytest.importorskip("ctranslate2")

from keras_nmt.workshop.translators.ctranslate2_export import export_ctranslate2  # noqa: E402  (needs it)

TINY = dict(d_model=16, num_heads=2, ff_dim=32, num_layers=2, max_length=40)
# Dates (generated) as the sentences: varied lengths, digits, words and punctuation.
TEXTS = [source for source, _ in builtin_pairs("dates", "test", size=200, seed=2)]


def make_transformer_run(path, api="functional", **variant):
    """A run folder of a tiny untrained Transformer with char tokenizers.

    The weights are drawn wider than Keras' initializers (normal, std 0.5) so that the arg-max is
    decisive at every step (no near-ties) and the outputs vary (an untrained Transformer at the
    usual scale repeats one token up to the length limit).
    """
    pairs = builtin_pairs("dates", "train", size=300, seed=1)
    sources, targets = [s for s, _ in pairs], [t for _, t in pairs]
    options = {**TINY, **variant}
    if options.get("shared_embeddings"):
        source = target = make_tokenizer("char").build(sources + targets)
    else:
        source = make_tokenizer("char").build(sources)
        target = make_tokenizer("char").build(targets)
    keras.utils.set_random_seed(0)
    model = build_model("transformer", api, source.vocab_size, target.vocab_size, options)
    ones = tf.ones([1, 3], tf.int32)
    model({"encoder_tokens": ones, "decoder_tokens": ones})
    rng = np.random.default_rng(0)
    for weight in model.weights:
        if len(weight.shape) > 1:
            weight.assign(rng.normal(0.0, 0.5, weight.shape).astype("float32"))
        else:  # biases and layer-norm offsets away from 0, gains away from 1
            weight.assign(weight.numpy() + rng.normal(0.0, 0.2, weight.shape).astype("float32"))
    path.mkdir(parents=True)
    TrainConfig(model="transformer", api=api, output=str(path),
                joint_vocabulary=bool(options.get("shared_embeddings")), **options).to_json(
        path / "config.json")
    source.save(path / "tokenizers" / "source")
    target.save(path / "tokenizers" / "target")
    model.save(path / "model.keras")
    record_run_provenance(path, model=model)  # as a training writes it
    return path


def teacher_forced_log_probs(model, source_ids, target_ids):
    """Our model's log-probability of each target token (`</s>` included), per pair."""
    width = max(map(len, source_ids))
    source = np.array([row + [PAD_ID] * (width - len(row)) for row in source_ids], np.int32)
    inputs = [[START_ID] + row for row in target_ids]
    width = max(map(len, inputs))
    decoder = np.array([row + [PAD_ID] * (width - len(row)) for row in inputs], np.int32)
    logits = model({"encoder_tokens": source, "decoder_tokens": decoder}, training=False)
    log_probs = keras.ops.convert_to_numpy(keras.ops.log_softmax(logits, axis=-1))
    return [
        [float(log_probs[i, t, token]) for t, token in enumerate(row + [END_ID])]
        for i, row in enumerate(target_ids)
    ]


VARIANTS = [
    ("functional", {}),
    ("subclassed", {}),
    ("functional", {"pre_norm": True}),
    ("subclassed", {"pre_norm": True, "tied_output": True}),
    ("functional", {"tied_output": True}),
    ("subclassed", {"shared_embeddings": True}),
]


@pytest.mark.parametrize(("api", "variant"), VARIANTS, ids=[
    f"{api}-{'-'.join(variant) or 'post_norm'}" for api, variant in VARIANTS])
def test_float32_export_decodes_our_tokens(tmp_path, api, variant, request):
    if (api, variant) == ("functional", {}):  # the module's own (read only)
        export = request.getfixturevalue("post_norm_export")[1]
        ours = request.getfixturevalue("post_norm_translator")
    else:
        run = make_transformer_run(tmp_path / "run", api, **variant)
        export = export_ctranslate2(run, tmp_path / "ct2")
        ours = open_translator(run)
    theirs = open_translator(export)
    assert isinstance(theirs, CTranslate2Translator)

    outputs = set()
    ids = theirs.source_ids(TEXTS)
    limits = theirs.sentence_limits([len(row) for row in ids], GREEDY)
    for beam_size in (1, 4):
        expected = ours.translate_batch(TEXTS, beam_size=beam_size)
        got = theirs.translate_batch(TEXTS, beam_size=beam_size)
        same = [g.texts == e.texts for g, e in zip(got, expected, strict=True)]
        if beam_size == 1:
            assert all(same)
        else:
            # At the length limit CTranslate2 ranks the unfinished hypotheses with the finished
            # ones, ours ranks any finished one first: they differ where a hypothesis without
            # </s> outscores every finished one (a model looping with near-certainty, as these
            # random ones do on some inputs). Every difference must be such a case.
            assert np.mean(same) >= 0.75
            for i in np.flatnonzero(~np.array(same)):
                best = theirs.engine.translate_batch(
                    [[theirs.source_tokenizer.vocabulary[t] for t in ids[i]]], beam_size=4,
                    length_penalty=0, min_decoding_length=0, max_decoding_length=limits[i],
                    return_end_token=True)[0].hypotheses[0]
                assert len(best) == limits[i] and best[-1] != "</s>", TEXTS[i]
        # Float32 sums in another order: with weights of std 0.5 the logits are large (tens), so
        # the log-probabilities agree to a relative 1e-3 rather than to 1e-5.
        np.testing.assert_allclose([g.score for g, s in zip(got, same, strict=True) if s],
                                   [e.score for e, s in zip(expected, same, strict=True) if s],
                                   rtol=2e-3, atol=1e-3)
        outputs |= {r.text for r in expected}
    assert len(outputs) >= 5  # not one string for every input

    # Teacher-forced log-probabilities, on the dates' own targets.
    pairs = builtin_pairs("dates", "valid", size=40, seed=3)
    sources, targets = [s for s, _ in pairs], [t for _, t in pairs]
    source_ids = theirs.source_ids(sources)
    target_ids = theirs.target_tokenizer.tokenize(tf.constant(targets)).to_list()
    expected = teacher_forced_log_probs(ours.model, source_ids, target_ids)
    got = theirs.score_batch(sources, targets)
    for row_got, row_expected in zip(got, expected, strict=True):
        np.testing.assert_allclose(row_got, row_expected, rtol=2e-3, atol=1e-3)


@pytest.fixture(scope="module")
def post_norm_export(tmp_path_factory):
    """The run and float32 export of the first `VARIANTS` (tests copy what they change)."""
    path = tmp_path_factory.mktemp("post_norm")
    run = make_transformer_run(path / "run")
    return run, export_ctranslate2(run, path / "ct2")


@pytest.fixture(scope="module")
def post_norm_translator(post_norm_export):
    """The in-process translator of `post_norm_export`'s run, opened (and traced) once."""
    return open_translator(post_norm_export[0])


def test_calls_of_equal_cost_give_the_same_translations(post_norm_export):
    # The server's cut (`calls`): greedy decoding in calls of about equal cost, other
    # strategies in calls of equal counts; the same translations as calls of batch_size.
    translator = open_translator(post_norm_export[1])
    texts = [f"{text} {'7' * (i % 9)}" for i, text in enumerate(TEXTS * 3)]
    lengths = sorted(len(row) for row in translator.source_ids(texts) if row)
    for options in ({}, {"beam_size": 2}):
        sizes = []
        balanced = translator.translate_batch(texts, batch_size=len(texts), calls=3,
                                              on_batch=sizes.append, **options)
        by_count = translator.translate_batch(texts, **options)
        assert [r.texts for r in balanced] == [r.texts for r in by_count]
        if not options:
            assert sizes == call_sizes(lengths, len(texts), calls=3) and len(sizes) == 3


def test_n_best_lists_and_average_normalization(post_norm_export, post_norm_translator):
    ours, theirs = post_norm_translator, open_translator(post_norm_export[1])
    expected = ours.translate_batch(TEXTS, beam_size=4, n_best=3)
    got = theirs.translate_batch(TEXTS, beam_size=4, n_best=3)
    assert all(len(r.texts) == 3 for r in got)
    assert [r.text for r in got] == [r.text for r in expected]
    # Ranks 2 and 3 may differ where CTranslate2 ends a search on its first finished beam.
    same = np.mean([g.texts == e.texts for g, e in zip(got, expected, strict=True)])
    assert same >= 0.95

    # normalization="average" is CTranslate2's length_penalty=1: compared with `decode`.
    texts = TEXTS[:100]
    ids = theirs.source_ids(texts)
    width = max(map(len, ids))
    padded = np.array([row + [PAD_ID] * (width - len(row)) for row in ids], np.int32)
    result = decode(ours.model, padded, "beam", beam_size=4, normalization="average",
                    max_length=theirs.max_target_length)
    expected = [t.decode() for t in ours.target_tokenizer.detokenize(
        result.tokens[:, 0]).numpy().tolist()]
    got = theirs.translate_batch(texts, beam_size=4, normalization="average")
    assert [r.text for r in got] == expected


def test_options_without_an_engine_equivalent_are_refused(post_norm_export):
    translator = open_translator(post_norm_export[1])
    with pytest.raises(ValueError, match="GNMT's length penalty"):
        translator.translate_batch(TEXTS[:2], beam_size=4, length_penalty=0.6)
    with pytest.raises(ValueError, match="no attention weights"):
        translator.translate_batch(TEXTS[:2], return_attention=True)
    with pytest.raises(ValueError, match="coverage penalty"):
        translator.translate_batch(TEXTS[:2], beam_size=2, coverage_penalty=0.2)
    with pytest.raises(ValueError, match="max_length must be"):
        translator.translate_batch(TEXTS[:2], max_length=translator.max_target_length + 1)


def test_length_limits_empty_inputs_and_sampling(post_norm_export):
    translator = open_translator(post_norm_export[1])
    texts = ["", "   ", TEXTS[0], TEXTS[1]]
    results = translator.translate_batch(texts, beam_size=2, n_best=2, max_length_b=3,
                                         max_length_a=0)
    assert [r.texts for r in results[:2]] == [["", ""], ["", ""]]
    assert [r.scores for r in results[:2]] == [[0.0, 0.0], [0.0, 0.0]]
    # At most 3 tokens, </s> included: 3 characters at most.
    assert max(len(t) for r in results for t in r.texts) <= 3
    assert translator.translate_batch([]) == []

    sampled = translator.translate_batch(TEXTS[:20], strategy="sample", top_k=3)
    assert len(sampled) == 20 and all(len(r.texts) == 1 for r in sampled)
    greedy = translator.translate_texts(TEXTS[:20])
    argmax = translator.translate_batch(TEXTS[:20], strategy="sample", temperature=0)
    assert [r.text for r in argmax] == greedy
    # Below float32's smallest normal number a temperature is the arg-max too (the engine gave
    # empty translations for 1e-40).
    argmax = translator.translate_batch(TEXTS[:20], strategy="sample", temperature=1e-40)
    assert [r.text for r in argmax] == greedy


def test_samples_belong_to_the_sentence_in_any_batches_and_threads(post_norm_export,
                                                                   post_norm_translator):
    texts = [TEXTS[0]] * 8 + TEXTS[1:9]
    options = {"strategy": "sample", "seed": 0, "temperature": 3.0, "top_k": 6}
    one = CTranslate2Translator(post_norm_export[1], inter_threads=1, intra_threads=1)
    expected = one.translate_batch(texts, batch_size=len(texts), **options)
    assert len({r.text for r in expected[:8]}) == 8  # eight copies, eight draws
    three = CTranslate2Translator(post_norm_export[1], inter_threads=3, intra_threads=1)
    for settings in ({"batch_size": 1}, {"batch_size": 3}, {"batch_size": 16, "calls": 3}):
        got = three.translate_batch(texts, **settings, **options)
        assert [r.text for r in got] == [r.text for r in expected]
    [alone] = three.translate_batch([texts[12]], indices=[12], **options)
    assert alone.text == expected[12].text
    # The model's own log-probability of each sample, as the in-process translator scores it.
    ours = post_norm_translator.translate_batch(texts, **options)
    same = [a.text == b.text for a, b in zip(ours, expected, strict=True)]
    # Our sampling with our random numbers on either engine's logits: the same samples, but
    # where a draw falls within float rounding of a step of the distribution.
    assert np.mean(same) >= 0.8
    np.testing.assert_allclose([a.score for a, s in zip(expected, same, strict=True) if s],
                               [b.score for b, s in zip(ours, same, strict=True) if s],
                               rtol=2e-3, atol=1e-3)


def test_greedy_batches_of_mixed_limits_decode_each_sentence_at_its_own(post_norm_export):
    # Greedy decoding makes one call per batch, at its largest limit, then decodes again at its
    # own limit each sentence that reached it: what one call per sentence gives.
    translator = open_translator(post_norm_export[1])
    texts, short = TEXTS[:40], {"max_length_a": 0.5, "max_length_b": 2}
    limits = translator.sentence_limits(
        [len(row) for row in translator.source_ids(texts)], GREEDY.replace(**short))
    assert len(set(limits)) >= 5
    got = translator.translate_batch(texts, **short)
    alone = [translator.translate_batch([text], **short)[0] for text in texts]
    assert [r.text for r in got] == [r.text for r in alone]
    np.testing.assert_allclose([r.score for r in got], [r.score for r in alone], rtol=1e-5)
    # Sentences that reached their own limit, decoded again: at the batch's largest they
    # would go on.
    longest = translator.translate_batch(texts, max_length_a=0, max_length_b=max(limits))
    assert sum(len(b.text) > len(r.text) for b, r in zip(longest, got, strict=True)) >= 5


def test_export_is_atomic_and_keeps_an_existing_directory(post_norm_export, tmp_path):
    run = post_norm_export[0]
    export = shutil.copytree(post_norm_export[1], tmp_path / "ct2")  # replaced below
    metadata = json.loads((export / "keras_nmt_ctranslate2.json").read_text())
    assert metadata["model"] == "transformer" and metadata["quantization"] == "float32"
    assert metadata["max_target_length"] == 40
    with pytest.raises(FileExistsError, match="already exists"):
        export_ctranslate2(run, export)
    with pytest.raises(ValueError, match="quantization must be one of"):
        export_ctranslate2(run, tmp_path / "x", quantization="int3")
    assert not (tmp_path / "x").exists()
    replaced = export_ctranslate2(run, export, quantization="int8", force=True)
    assert json.loads((replaced / "keras_nmt_ctranslate2.json").read_text())[
        "quantization"] == "int8"
    assert [p.name for p in export.parent.iterdir() if p.name.startswith(".")] == []


@pytest.mark.parametrize("name", ["lstm", "convs2s"])
def test_a_recurrent_or_convolutional_run_is_refused(tmp_path, name):
    run = make_run_folder(tmp_path / f"{name}-run", name)
    with pytest.raises(ValueError, match=rf"{name}-run: a {name} model cannot be exported"):
        export_ctranslate2(run, tmp_path / "ct2")
    assert not (tmp_path / "ct2").exists()


FRESH_PROCESS = r"""
import json, math, sys
import ctranslate2
from keras_nmt.text import load_tokenizer
path, texts = json.loads(sys.stdin.read())
metadata = json.load(open(path + "/keras_nmt_ctranslate2.json"))
source = load_tokenizer(path + "/tokenizers/source")
target = load_tokenizer(path + "/tokenizers/target")
index = {token: i for i, token in enumerate(target.vocabulary)}
engine = ctranslate2.Translator(path, inter_threads=2, intra_threads=1)
out = []
for row in source.tokenize(texts).to_list():
    row = row[: metadata["max_source_length"]]
    limit = min(metadata["max_target_length"], math.ceil(1.5 * len(row) + 10))  # our default
    result = engine.translate_batch(
        [[source.vocabulary[i] for i in row]], beam_size=1, length_penalty=0,
        min_decoding_length=0, max_decoding_length=limit)[0]
    ids = [[index[token] for token in result.hypotheses[0]]]
    out.append(target.detokenize(ids).numpy()[0].decode())
print("OURS", json.dumps(sorted(m for m in sys.modules if m.startswith("keras_nmt"))))
print("RESULT", json.dumps(out))
"""


def test_the_export_translates_without_keras(post_norm_export):
    """A fresh Python with ctranslate2 and our tokenizers only: the export is self-contained.

    (`keras` itself is in `sys.modules` there: `import tensorflow`, which the tokenizers need,
    imports it; none of our models, layers or decoders is.)
    """
    export = post_norm_export[1]
    texts = ["3rd of March 2021", "July 4, 1776", "12/04/1999"]
    completed = subprocess.run(
        [sys.executable, "-c", FRESH_PROCESS], input=json.dumps([str(export), texts]),
        capture_output=True, text=True, timeout=300,
        env={"TF_CPP_MIN_LOG_LEVEL": "2", "PATH": "/usr/bin:/bin",
             "PYTHONPATH": str(Path(__file__).resolve().parents[2])},
    )
    assert completed.returncode == 0, completed.stderr[-3000:]
    lines = completed.stdout.splitlines()
    ours = json.loads(next(line for line in lines if line.startswith("OURS "))[5:])
    # `workshop` (its `keras_registration`): what `import keras_nmt` itself loads (its names are
    # imported on first use);
    # `plural`, `saved_files`: counts in the tokenizers' messages, their config and checksums
    # read back (standard library only).
    assert {m.split(".")[1] for m in ours if "." in m} == {
        "plural", "saved_files", "special_ids", "text", "workshop"}
    got = json.loads(next(line for line in lines if line.startswith("RESULT "))[7:])
    assert got == open_translator(export).translate_texts(texts)


@pytest.mark.slow
def test_int8_keeps_most_of_the_bleu_of_float32_on_a_trained_model(tmp_path):
    """A small Transformer trained for a short while on the dates: int8 close to float32.

    A model this small (d_model 32) feels 8-bit rounding: over six trainings, int8 changed its
    BLEU by +1% to -11% (a real Spanish-English model loses none, see
    docs/results/ctranslate2-translation-speed.md). What this guards against is a broken
    quantization, which leaves a model that translates nothing (BLEU under 5).
    """
    from keras_nmt.metrics.sacrebleu_scores import corpus_bleu
    from keras_nmt.workshop.run.trainer import train

    config = TrainConfig(
        model="transformer", data="dates", train_size=4000, valid_size=64, epochs=4,
        d_model=32, num_heads=2, ff_dim=64, num_layers=2, max_length=32, batch_size=64,
        learning_rate=3e-3, warmup_steps=100, precision="float32", verbose=0, samples=0,
        validation_sentences=16, output=str(tmp_path / "run"),
    )
    train(config, print_fn=lambda *_: None)
    pairs = builtin_pairs("dates", "test", size=300, seed=0)
    sources, references = [s for s, _ in pairs], [t for _, t in pairs]
    ours = open_translator(tmp_path / "run").translate_texts(sources)
    bleu = {}
    for quantization in ("float32", "int8"):
        export = export_ctranslate2(tmp_path / "run", tmp_path / quantization,
                                    quantization=quantization)
        hypotheses = open_translator(export).translate_texts(sources)
        if quantization == "float32":
            assert hypotheses == ours
        bleu[quantization] = corpus_bleu(hypotheses, references, tokenize="char").score
    assert bleu["float32"] > 15, bleu  # it learned something (untrained: under 5)
    assert bleu["int8"] >= 0.8 * bleu["float32"], bleu
