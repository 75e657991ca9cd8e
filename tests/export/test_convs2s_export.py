"""A ConvS2S run as a SavedModel: the export translates, scores and attends as the run does.

(`test_export.py`'s slow `test_every_model_exports_exactly` also checks both twins in a fresh
process, with every other model; this one checks ConvS2S alone, at every test run.)
"""

import numpy as np
import pytest
import tensorflow as tf

from keras_nmt.workshop.translators.export_translator import export_translator
from keras_nmt.workshop.translators.saved_translator import SavedTranslator
from tests.export.helpers import SOURCES, in_process, make_translator

pytestmark = pytest.mark.tensorflow


def exported_outputs(saved, texts, beams):
    """`in_process`'s outputs from the export's signatures."""
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


def test_a_convs2s_export_gives_the_runs_translations_scores_and_attention(tmp_path):
    translator = make_translator("convs2s", "functional")
    path = export_translator(translator, tmp_path, name="convs2s")
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
