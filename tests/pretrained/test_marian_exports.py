"""An imported Marian model exports as a SavedModel and to CTranslate2 with the same outputs."""

import json

import numpy as np
import pytest

from keras_nmt.workshop.translators.ctranslate2_export import export_ctranslate2
from keras_nmt.workshop.translators.export_translator import export_translator
from keras_nmt.workshop.translators.open_translator import model_data, open_translator
from tests.pretrained.conftest import MAX_NEW_TOKENS

SENTENCES = 48


def test_saved_model_gives_the_in_process_outputs(imported, opened, reference, tmp_path):
    # The functional twin: what is Marian's here (the SentencePiece tokenizers in the graph, the
    # target-language prefix) is the twins' common part; each twin's export is exact in
    # tests/export/test_export.py, and both twins decode as transformers in test_marian_parity.
    run_dir = imported("functional").run_dir
    # Beam sizes 1 and 2: the greedy and the beam-search functions (each size the export serves
    # is traced on its own; beam 4 against transformers is test_marian_parity's).
    export = export_translator(run_dir, base_dir=tmp_path, max_beam_size=2)
    texts = reference.sentences[:SENTENCES]
    saved = open_translator(export)
    for beam_size in (1, 2):
        expected = opened.translate_batch(texts, beam_size=beam_size)
        got = saved.translate_batch(texts, beam_size=beam_size)
        assert [g.texts for g in got] == [e.texts for e in expected]
        np.testing.assert_allclose([g.score for g in got], [e.score for e in expected],
                                   rtol=1e-5, atol=1e-5)
    assert len({r.text for r in expected}) > SENTENCES // 2
    assert_carries_provenance(export, run_dir)


def assert_carries_provenance(export, run_dir):
    """An export carries its run's languages, attribution and tokenizers' fingerprints (issue
    68: its `"languages"` were null and its CC-BY attribution gone)."""
    carried, imported = model_data(export).provenance, model_data(run_dir).provenance
    carried = {k: v for k, v in carried.items() if k != "engine_files"}  # CTranslate2's files
    assert carried == json.loads(json.dumps(imported))
    assert carried["attribution"]["name"] == "hf" and carried["attribution"]["licence"]
    assert carried["languages"]["source"]["code"] == "spa"
    assert set(carried["tokenizers"]) == {"source", "target"}


@pytest.fixture(scope="module")
def ctranslate2_export(imported, tmp_path_factory):
    pytest.importorskip("ctranslate2")
    return export_ctranslate2(imported().run_dir, tmp_path_factory.mktemp("ct2") / "model")


def test_ctranslate2_export_gives_the_in_process_greedy_outputs(imported, opened, reference,
                                                                ctranslate2_export):
    texts = reference.sentences
    theirs = open_translator(ctranslate2_export).translate_batch(texts)
    assert [t.texts for t in theirs] == [o.texts for o in opened.translate_batch(texts)]
    assert_carries_provenance(ctranslate2_export, imported().run_dir)


def test_ctranslate2_export_equals_ctranslate2s_own_marian_converter(reference,
                                                                      ctranslate2_export):
    """The reference is CTranslate2's `TransformersConverter` run on the same Hugging Face
    directory (in `make_fixtures.py`): same pieces, greedy, 24 tokens at most."""
    translator = open_translator(ctranslate2_export)
    vocabulary = translator.source_tokenizer.vocabulary
    tokens = [[vocabulary[i] for i in row] for row in translator.source_ids(reference.sentences)]
    results = translator.engine.translate_batch(tokens, beam_size=1,
                                                max_decoding_length=MAX_NEW_TOKENS)
    ours = [" ".join(result.hypotheses[0]) for result in results]
    assert ours == list(reference.arrays["ctranslate2_greedy"])
