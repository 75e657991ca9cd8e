"""The explorer's model views, in process: per-head attention, model specs and their pairs."""

import importlib
import os
from pathlib import Path

import numpy as np
import pytest

from keras_nmt.inference.translation_result import TranslationResult
from keras_nmt.workshop.serve.beam_tree import beam_tree
from keras_nmt.workshop.serve.served_model import (
    ModelLoadError,
    ServedModel,
    decoder_layer_attention,
    explore,
    explore_export,
    head_attention,
    load_served_models,
    parse_model_spec,
)
from keras_nmt.workshop.translators.ctranslate2_translator import ctranslate2_threads
from keras_nmt.workshop.translators.saved_translator import SavedTranslator
from tests.export.helpers import SOURCES, make_model, make_translator

pytestmark = pytest.mark.tensorflow


@pytest.mark.parametrize("api", ["functional", "subclassed"])
def test_the_mean_of_the_last_layers_heads_is_the_decoders_attention(api):
    model, source, _ = make_model("transformer", api)
    ids = np.asarray(source.tokenize([SOURCES[0]]).to_tensor(), np.int32)
    tree = beam_tree(model, ids, beam_size=2, max_length=12)
    heads = head_attention(model, ids, tree.hypotheses[0]["tokens"])
    assert heads.shape == (2, 2, len(tree.hypotheses[0]["tokens"]), ids.shape[1])
    np.testing.assert_allclose(heads[-1].mean(axis=0), tree.attention[0], atol=1e-5)
    np.testing.assert_allclose(heads.sum(axis=-1), 1.0, atol=1e-5)


@pytest.mark.parametrize("api", ["functional", "subclassed"])
def test_the_mean_of_a_convs2s_decoder_layers_is_the_decoders_attention(api):
    model, source, _ = make_model("convs2s", api)
    ids = np.asarray(source.tokenize([SOURCES[0]]).to_tensor(), np.int32)
    tree = beam_tree(model, ids, beam_size=2, max_length=12)
    layers = decoder_layer_attention(model, ids, tree.hypotheses[0]["tokens"])
    assert layers.shape == (2, 1, len(tree.hypotheses[0]["tokens"]), ids.shape[1])
    np.testing.assert_allclose(layers.mean(axis=0)[0], tree.attention[0], atol=1e-5)
    assert not np.allclose(layers[0], layers[1], atol=1e-3)  # each layer attends its own way


def test_the_explorer_shows_each_convs2s_decoder_layer():
    translator = make_translator("convs2s")
    view = explore(ServedModel("convs2s", Path("run"), ("en", "de"), translator), SOURCES[1],
                   beam_size=2, n_best=1, length_penalty=0.0, top_k=3)
    layers = np.array(view["attention"]["layers"])  # (layers, heads, target, source)
    assert layers.shape[:2] == (2, 1)
    assert layers.shape[2:] == (len(view["hypotheses"][0]["tokens"]), len(view["source_tokens"]))
    assert view["attention"]["averaged"].startswith("each decoder layer's attention")


def test_specs_pairs_and_names(runs, tmp_path):
    assert parse_model_spec("pt-BR:en=runs/a=b") == (("pt-BR", "en"), Path("runs/a=b"))
    assert parse_model_spec("runs/spa") == (None, Path("runs/spa"))
    assert parse_model_spec("runs/a=b") == (None, Path("runs/a=b"))  # a folder's "="
    (tmp_path / "en-de=v2").mkdir()
    assert parse_model_spec(f"{tmp_path}/en-de=v2") == (None, tmp_path / "en-de=v2")
    # These were taken for paths: the error then suggested SRC:TGT=EN:de=runs/spa.
    for spec in ("EN:de=runs/spa", "en-de=runs/spa", "es:en:fr=runs/spa", "english:es=x"):
        with pytest.raises(ValueError, match=f"'{spec.partition('=')[0]}' is not a language pair"):
            parse_model_spec(spec)
    with pytest.raises(ValueError, match="no path after '='"):
        parse_model_spec("es:en=")
    with pytest.raises(ModelLoadError, match="runs/nowhere does not exist"):
        load_served_models(["runs/nowhere"])  # it said: no language pair
    transformer, luong = runs
    models = load_served_models([str(transformer), f"fr:en={luong}", f"de:en={luong}"])
    assert [(m.name, m.pair, m.kind) for m in models] == [
        ("transformer", ("es", "en"), "run folder"), ("luong", ("fr", "en"), "run folder"),
        ("luong'", ("de", "en"), "run folder")]
    with pytest.raises(ModelLoadError, match=f"{luong}: no language pair"):
        load_served_models([str(luong)])


def test_the_workers_reach_a_ctranslate2_exports_threads(monkeypatch, tmp_path):
    # `--workers` (serve) and `--parallel-batches` (translate, evaluate) set TensorFlow's pools;
    # a CTranslate2 export has threads of its own, which kept their default before.
    # the module
    opening = importlib.import_module("keras_nmt.workshop.translators.open_translator")
    made = []
    monkeypatch.setattr(opening, "is_ctranslate2_export", lambda path: True)
    monkeypatch.setattr(opening, "CTranslate2Translator",
                        lambda path, **threads: made.append(threads) or "translator")
    (tmp_path / "keras_nmt_ctranslate2.json").write_text("{}")  # its record, read by model_data
    [model] = load_served_models([f"es:en={tmp_path}"], parallel=3)
    assert model.translator == "translator"
    assert made == [{"inter_threads": 3, "intra_threads": 1}]
    assert ctranslate2_threads(None) == {}
    one_batch = ctranslate2_threads(1)  # on every core, as TensorFlow's --parallel-batches 1
    assert one_batch["inter_threads"] == 1 and one_batch["intra_threads"] == len(
        os.sched_getaffinity(0))


class _SavedTransformer(SavedTranslator):
    """A SavedModel of a Transformer, without loading one: what `explore_export` reads."""

    def __init__(self):
        self.metadata, self.has_attention = {"model_class": "TransformerFunctional"}, True

    def translate_batch(self, texts, options):
        return [TranslationResult(["hi"], [-1.0], np.full((2, 3), 1 / 3, np.float32),
                                  ["a", "b", "</s>"], ["hi", "</s>"])]


def test_a_saved_transformers_attention_is_labelled_as_its_head_average(tmp_path):
    """The explorer showed a SavedModel's head-averaged attention as "layer 1, head 1"."""
    served = ServedModel("t", tmp_path, ("es", "en"), _SavedTransformer())
    view = explore_export(served, "a b", beam_size=1, n_best=1, length_penalty=0.0)
    assert view["attention"]["averaged"].startswith("head average: the last decoder layer's "
                                                    "cross-attention, averaged over its heads")
    assert np.asarray(view["attention"]["layers"]).shape == (1, 1, 2, 3)  # one map
