"""The recorded beam search finds what `beam_search` finds, step by step on one sentence."""

import numpy as np
import pytest

from keras_nmt.decoding.loop import decode
from keras_nmt.special_ids import END_ID
from keras_nmt.workshop.serve.beam_tree import beam_tree
from tests.decoding.fake_models import FakeModel, random_table
from tests.export.helpers import SOURCES, make_model


@pytest.mark.tensorflow
@pytest.mark.parametrize("name", ["luong", "transformer"])
@pytest.mark.parametrize("beam_size, length_penalty", [(1, 0.0), (3, 0.0), (3, 0.6)])
def test_best_hypotheses_equal_beam_search(name, beam_size, length_penalty):
    model, source, _ = make_model(name, "subclassed")
    for text in SOURCES[:2]:
        ids = np.asarray(source.tokenize([text]).to_tensor(), np.int32)
        expected = decode(model, ids, "beam", beam_size=beam_size, length_penalty=length_penalty,
                          max_length=12)
        tree = beam_tree(model, ids, beam_size=beam_size, length_penalty=length_penalty,
                         max_length=12)
        lengths = np.asarray(expected.lengths)[0]
        tokens = np.asarray(expected.tokens)[0]
        for place, hypothesis in enumerate(tree.hypotheses):
            assert hypothesis["tokens"] == tokens[place, : lengths[place]].tolist()
            assert hypothesis["score"] == pytest.approx(float(expected.scores[0, place]),
                                                        abs=1e-5)
            assert hypothesis["log_prob"] == pytest.approx(float(expected.log_probs[0, place]),
                                                           abs=1e-5)
            assert sum(hypothesis["token_log_probs"]) == pytest.approx(hypothesis["log_prob"],
                                                                       abs=1e-4)
        assert len(tree.hypotheses) == beam_size
        assert len(tree.attention[0]) == len(tree.hypotheses[0]["tokens"])


@pytest.mark.tensorflow
def test_steps_record_live_finished_and_pruned_candidates():
    model, source, _ = make_model("luong", "subclassed")
    ids = np.asarray(source.tokenize([SOURCES[0]]).to_tensor(), np.int32)
    tree = beam_tree(model, ids, beam_size=2, max_length=12, top_k=3)
    first = tree.steps[0]
    # Step 0 extends the root only: every candidate's parent is the root.
    assert {c["parent"] for c in first["candidates"]} == {"root"}
    for step in tree.steps:
        statuses = [c["status"] for c in step["candidates"]]
        assert statuses.count("live") == 2
        assert len(statuses) <= 4
        for candidate in step["candidates"]:
            assert (candidate["status"] == "finished") <= (candidate["token"] == END_ID)
        for top in step["top_k"]:
            assert len(top["tokens"]) == 3
            assert top["probs"] == sorted(top["probs"], reverse=True)
    # Every node after step 0 extends a live node of the step before.
    for before, step in zip(tree.steps, tree.steps[1:], strict=False):
        live = {c["id"] for c in before["candidates"] if c["status"] == "live"}
        assert {c["parent"] for c in step["candidates"]} <= live


@pytest.mark.parametrize("seed", [0, 3, 7])
@pytest.mark.parametrize("normalization, length_penalty", [("gnmt", 0.0), ("gnmt", 0.6),
                                                          ("average", 0.0)])
def test_the_tree_agrees_with_beam_search_on_fake_models_on_any_backend(
        seed, normalization, length_penalty):
    """Seeded random tables with END reachable: finishing, early stopping and the limit."""
    model = FakeModel(random_table(seed, end_bias=1.0), has_attention=True, source_weight=0.3,
                      prev_weight=0.2)
    ids = np.array([[5, 6, 7, 0]], np.int32)
    expected = decode(model, ids, "beam", beam_size=3, normalization=normalization,
                      length_penalty=length_penalty, max_length=6)
    tree = beam_tree(model, ids, beam_size=3, normalization=normalization,
                     length_penalty=length_penalty, max_length=6)
    lengths = np.asarray(expected.lengths)[0]
    for place, hypothesis in enumerate(tree.hypotheses):
        assert hypothesis["tokens"] == np.asarray(expected.tokens)[0, place, :lengths[place]] \
            .tolist()
        assert hypothesis["score"] == pytest.approx(float(np.asarray(expected.scores)[0, place]),
                                                    abs=1e-5)
