import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import tensorflow as tf

from keras_nmt.models import registry
from keras_nmt.workshop.benchmarks.translation_section import time_translation
from keras_nmt.workshop.translators.export_translator import export_translator
from keras_nmt.workshop.translators.open_translator import open_translator
from keras_nmt.workshop.translators.saved_translator import SavedTranslator
from tests.export.helpers import (
    BAD_INPUTS,
    SOURCES,
    in_process,
    make_translator,
    run_fresh_process,
)

CLI = Path(sys.executable).parent / "saved_model_cli"
SAVED_MODEL_CLI_WITH_TF_TEXT = (
    "import sys, tensorflow_text; from tensorflow.python.tools import saved_model_cli; "
    "sys.argv[0] = 'saved_model_cli'; saved_model_cli.main()"
)
BEAMS = [(1, 0.0), (2, 0.0), (2, 0.6)]


# Besides the dates: an empty input (translated to "") and one over max_source_length (truncated).
TEXTS = SOURCES + ["", "x" * 500]


@pytest.fixture(scope="module")
def every_export(tmp_path_factory, lstm_export):
    """Every model twin exported: `{(name, api): (translator, what one fresh process (for all
    of them) translates, the export's path)}`.

    One process loads them all: each fresh process pays TensorFlow's import again.
    """
    directory = tmp_path_factory.mktemp("every")
    translators, paths = {}, {}
    for name in registry.MODEL_NAMES:
        for api in registry.APIS:
            if (name, api) == ("lstm", "functional"):  # exported already
                translators[name, api], paths[name, api] = lstm_export
                continue
            # The untrained Transformer's outputs run past 16 tokens (with seed 1 they reach
            # their limits), so that the exported self-attention caches (16 positions at
            # first) grow.
            long = {"max_target_length": 24, "seed": 1} if name == "transformer" else {}
            translators[name, api] = make_translator(name, api, **long)
            paths[name, api] = export_translator(
                translators[name, api], directory, name=f"{name}_{api}")
    fresh = run_fresh_process([[str(path), TEXTS, BEAMS] for path in paths.values()])
    return {key: (translators[key], fresh[str(path)], path) for key, path in paths.items()}


def test_fresh_process_gives_the_same_translations_and_scores(every_export):
    translator, fresh, _ = every_export["lstm", "functional"]
    assert fresh == in_process(translator, TEXTS, BEAMS)


@pytest.mark.slow
@pytest.mark.parametrize("api", registry.APIS)
@pytest.mark.parametrize("name", registry.MODEL_NAMES)
def test_every_model_exports_exactly(name, api, every_export):
    translator, fresh, _ = every_export[name, api]
    assert fresh == in_process(translator, TEXTS, BEAMS)
    if name == "transformer":  # char tokens: past 16 characters, the caches grew
        assert max(len(text) for text in fresh["greedy"][0]) > 16


def exported_outputs(saved, texts, beams):
    """`in_process`'s outputs from the export's signatures, in this process."""
    text = tf.constant(texts)
    greedy = saved.signatures["serving_default"](text=text)
    item = {"greedy": [[t.decode() for t in greedy["translation"].numpy()],
                       greedy["score"].numpy().tolist()]}
    for beam_size, alpha in beams:
        result = saved.signatures["beam_search"](
            text=text, beam_size=tf.constant(beam_size), length_penalty=tf.constant(alpha))
        item[f"{beam_size}/{alpha}"] = [
            [[t.decode() for t in row] for row in result["translations"].numpy()],
            result["scores"].numpy().tolist()]
    return item


def test_a_convs2s_export_gives_the_runs_translations_scores_and_attention(every_export):
    """ConvS2S alone, at every test run (`test_every_model_exports_exactly` is slow): its export
    translates, scores and attends as the run does (`every_export`'s, made for the fresh
    process anyway)."""
    translator, _, path = every_export["convs2s", "functional"]
    saved = SavedTranslator(path)
    beams = [(2, 0.0), (2, 0.6)]
    texts = [*SOURCES, ""]
    assert exported_outputs(saved, texts, beams) == in_process(translator, texts, beams)
    assert saved.has_attention
    exported = saved.translate_batch(SOURCES, return_attention=True)
    own = translator.translate_batch(SOURCES, return_attention=True)
    for got, want in zip(exported, own, strict=True):
        assert (got.text, got.target_tokens) == (want.text, want.target_tokens)
        np.testing.assert_allclose(got.weights, want.weights, atol=1e-6)  # the layers' mean
        np.testing.assert_allclose(got.weights.sum(axis=1), 1.0, atol=1e-5)


def test_layout_and_versions(lstm_export, lstm_saved):
    _, path = lstm_export
    assert path.name == "1" and (path / "saved_model.pb").exists()
    assert (path / "assets.extra" / "keras_nmt.json").exists()
    saved = lstm_saved
    assert {"serving_default", "beam_search", "attention"} <= set(saved.signatures)
    assert saved.attention_scores  # a confidence can be given (the server refuses it else)
    # The model's variables, not its Keras objects (whose own serving functions the export
    # would trace and a load restore, for nothing: a fifth of a Transformer's export time).
    assert not hasattr(saved.module, "model") and saved.module.model_variables
    # The Python API runs the exported function of the one beam size it needs: it gives what
    # the `beam_search` signature (all sizes, switched at run time) gives.
    assert len(saved.module.beam_functions) == 2
    results = saved.translate_batch(SOURCES, beam_size=2, n_best=2, length_penalty=0.6)
    signature = saved.signatures["beam_search"](
        text=tf.constant(SOURCES), beam_size=tf.constant(2), length_penalty=tf.constant(0.6))
    assert [r.texts for r in results] == [
        [t.decode() for t in row] for row in signature["translations"].numpy()]
    np.testing.assert_allclose([r.scores for r in results], signature["scores"].numpy())


def test_bad_inputs_never_crash(lstm_saved):
    saved = lstm_saved
    results = saved.translate_batch(BAD_INPUTS)
    assert [r.text for r in results[:2]] == ["", ""] and results[0].score == 0.0
    assert all(isinstance(r.text, str) and np.isfinite(r.score) for r in results)
    assert saved.translate_batch([]) == []
    empty = saved.signatures["serving_default"](text=tf.zeros([0], tf.string))
    assert empty["translation"].shape == (0,) and empty["score"].shape == (0,)
    beam = saved.signatures["beam_search"](
        text=tf.constant(BAD_INPUTS), beam_size=tf.constant(2), length_penalty=tf.constant(0.6))
    assert beam["translations"].shape == (5, 2)
    attention = saved.signatures["attention"](text=tf.constant(BAD_INPUTS))
    # Truncated to max_source_length = 20 source tokens.
    assert attention["source_tokens"].shape[1] == 20
    assert attention["weights"].shape[1:] == (attention["tokens"].shape[1], 20)


def test_out_of_range_options_give_clear_errors(lstm_export, lstm_saved):
    translator, saved = lstm_export[0], lstm_saved
    for beam_size in (0, 3):
        with pytest.raises(tf.errors.InvalidArgumentError, match="beam_size must be in"):
            saved.signatures["beam_search"](
                text=tf.constant(["a"]), beam_size=tf.constant(beam_size),
                length_penalty=tf.constant(0.0))
    with pytest.raises(ValueError, match="beam_size"):
        translator.translate_batch(["a"], beam_size=3)
    with pytest.raises(ValueError, match="sampling is not exported"):
        saved.translate_batch(["a"], strategy="sample")


def test_length_limits_default_to_the_models_own():
    from keras_nmt.decoding.decoding_options import DEFAULT_MAX_LENGTH
    from keras_nmt.inference.translator import Translator
    from tests.export.helpers import SMALL, make_model

    model, source, target = make_model("transformer")  # a position table of SMALL["max_length"]
    translator = Translator(model, source, target)
    assert translator.max_source_length == translator.max_target_length == SMALL["max_length"]
    assert len(translator.translate_texts(["x" * 100])) == 1  # cut, not out of the table
    with pytest.raises(ValueError, match="exceeds the model's max_length"):
        Translator(model, source, target, max_target_length=SMALL["max_length"] + 1)
    recurrent = Translator(*make_model("lstm"))
    assert recurrent.max_source_length == recurrent.max_target_length == DEFAULT_MAX_LENGTH


def test_in_process_and_saved_python_api_agree(lstm_export):
    translator, path = lstm_export
    saved = open_translator(path.parent)  # a model directory opens its highest version
    for options in ({}, {"beam_size": 2, "n_best": 2, "length_penalty": 0.6},
                    {"return_attention": True}):
        ours = translator.translate_batch(SOURCES[:2], **options)
        theirs = saved.translate_batch(SOURCES[:2], **options)
        assert [r.texts for r in ours] == [r.texts for r in theirs]
        assert [r.scores for r in ours] == [r.scores for r in theirs]
    n_best = translator.translate_batch(SOURCES, beam_size=2, n_best=2, length_penalty=0.6)
    assert all(r.scores[0] >= r.scores[1] for r in n_best)
    with_attention = translator.translate_batch(SOURCES[:1], return_attention=True)[0]
    # The plain LSTM has no attention: zeros of the documented shape.
    assert with_attention.weights.shape == (
        len(with_attention.target_tokens), len(with_attention.source_tokens))
    assert not with_attention.weights.any()
    assert with_attention.source_tokens == list(SOURCES[0])


def test_saved_model_cli_show_and_run(lstm_export):
    _, path = lstm_export
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2"}
    show = subprocess.run([str(CLI), "show", "--dir", str(path), "--all"], capture_output=True,
                          text=True, env=env, timeout=300)
    assert show.returncode == 0, show.stderr[-2000:]
    for name in ("serving_default", "beam_search", "attention", "length_penalty", "weights"):
        assert name in show.stdout
    # `saved_model_cli run` must register the tensorflow-text ops (NormalizeUTF8) first.
    run = subprocess.run(
        [sys.executable, "-c", SAVED_MODEL_CLI_WITH_TF_TEXT, "run", "--dir", str(path),
         "--tag_set", "serve", "--signature_def", "serving_default",
         "--input_exprs", 'text=["3rd of March 2021"]'],
        capture_output=True, text=True, env=env, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    assert "translation" in run.stdout and "score" in run.stdout


def test_interrupted_export_leaves_nothing(lstm_export, tmp_path, monkeypatch):
    translator, _ = lstm_export
    real_save = tf.saved_model.save

    def interrupted(obj, export_dir, signatures=None):
        Path(export_dir, "saved_model.pb").write_bytes(b"half")
        raise KeyboardInterrupt("power cut")

    monkeypatch.setattr(tf.saved_model, "save", interrupted)
    with pytest.raises(KeyboardInterrupt):
        export_translator(translator, tmp_path, name="m")
    assert list((tmp_path / "m").iterdir()) == []
    monkeypatch.setattr(tf.saved_model, "save", real_save)
    with pytest.raises(FileExistsError):
        (tmp_path / "m" / "4").mkdir()
        export_translator(translator, tmp_path, name="m", version=4)


def test_speed_measure(lstm_export, lstm_saved):
    translator = lstm_export[0]
    texts = SOURCES * 16
    ours = time_translation(translator, texts, batch_size=32)
    theirs = time_translation(lstm_saved, texts, batch_size=32)
    assert ours["sentences"] == theirs["sentences"] == 64
    assert ours["sentences_per_second"] > 0 and theirs["sentences_per_second"] > 0
    print("saved/in-process speed ratio",
          theirs["sentences_per_second"] / ours["sentences_per_second"])


def test_length_sorted_batches_return_results_in_input_order(lstm_export):
    translator = lstm_export[0]  # make_translator("lstm"), traced once for the module's tests
    texts = ["July 4, 1776", "3", "on the 1st of May 2021", "", "12/04/1999"]
    alone = [translator.translate_batch([text])[0].text for text in texts]
    assert [r.text for r in translator.translate_batch(texts, batch_size=2)] == alone
