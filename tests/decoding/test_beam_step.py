"""The candidate step of beam search on hand-made scores (no model, no loop)."""

import numpy as np
from keras import ops

from keras_nmt.decoding.beam_search import beam_step, gather_beams, keep_best_finished
from keras_nmt.special_ids import END_ID

INF = np.inf
VOCAB = 6  # ids 0-2 never chosen here (-inf), END_ID = 3, real tokens 4 and 5


def row(end, token_4, token_5):
    """Next-token log-probabilities of one beam over the 6 ids."""
    return [-INF, -INF, -INF, end, token_4, token_5]


def run(alive_log_probs, log_probs, active):
    step = beam_step(
        ops.convert_to_tensor(np.array(alive_log_probs, dtype="float32")),
        ops.convert_to_tensor(np.array(log_probs, dtype="float32")),
        ops.convert_to_tensor(np.array(active, dtype=bool)),
    )
    return {key: ops.convert_to_numpy(value) for key, value in step.items()}


def test_splits_the_top_extensions_into_finished_and_live():
    assert END_ID == 3
    step = run(
        alive_log_probs=[
            [-1.0, -2.0],  # an END ranks first: it finishes, the beam goes on with token 4
            [0.0, -INF],  # first step: only beam 0 exists
            [-0.1, -0.2],  # both top extensions end; the live beams swap places
            [0.0, -INF],  # as sentence 1, but the sentence has stopped
        ],
        log_probs=[
            [row(-0.5, -1.0, -4.0), row(-3.0, -0.1, -5.0)],
            [row(-0.2, -1.0, -2.0), row(-0.2, -1.0, -2.0)],
            [row(-0.1, -2.0, -3.0), row(-0.1, -1.5, -4.0)],
            [row(-0.2, -1.0, -2.0), row(-0.2, -1.0, -2.0)],
        ],
        active=[True, True, True, False],
    )
    # Candidates, sentence 0: END@0 -1.5, 4@0 -2.0, 4@1 -2.1, END@1 -5.0, 5@0 -5.0, 5@1 -7.0.
    # Sentence 2: END@0 -0.2, END@1 -0.3, 4@1 -1.7, 4@0 -2.1, 5@0 -3.1, 5@1 -4.2.
    np.testing.assert_array_equal(
        step["is_finished"], [[True, False], [True, False], [True, True], [False, False]]
    )
    np.testing.assert_allclose(
        step["end_log_probs"], [[-1.5, -INF], [-0.2, -INF], [-0.2, -0.3], [-INF, -INF]], rtol=1e-6
    )
    np.testing.assert_array_equal(step["end_beam"][:, 0], [0, 0, 0, 0])
    assert step["end_beam"][2, 1] == 1
    np.testing.assert_allclose(
        step["live_log_probs"], [[-2.0, -2.1], [-1.0, -2.0], [-1.7, -2.1], [-1.0, -2.0]], rtol=1e-6
    )
    np.testing.assert_array_equal(step["live_beam"], [[0, 1], [0, 0], [1, 0], [0, 0]])
    np.testing.assert_array_equal(step["live_token"], [[4, 4], [4, 5], [4, 4], [4, 5]])
    for key in ("live_beam", "live_token", "end_beam"):
        assert step[key].dtype == np.int32


def test_an_end_outside_the_top_k_does_not_finish():
    # k = 1: END is the second best extension, so nothing finishes and token 4 goes on.
    step = run([[0.0]], [[row(np.log(0.3), np.log(0.4), np.log(0.3) - 0.01)]], [True])
    assert not step["is_finished"].any()
    np.testing.assert_allclose(step["end_log_probs"], [[-INF]])
    np.testing.assert_array_equal(step["live_token"], [[4]])
    np.testing.assert_allclose(step["live_log_probs"], [[np.log(0.4)]], rtol=1e-6)


def test_equals_ranking_all_extensions():
    # The top-2k shortcut gives what sorting all k * vocab extensions gives.
    rng = np.random.default_rng(0)
    k, vocab = 3, 9
    alive = np.sort(rng.normal(size=(5, k)), axis=1)[:, ::-1].astype("float32")
    log_probs = rng.normal(size=(5, k, vocab)).astype("float32")
    log_probs[:, :, END_ID] += 1.5  # many ENDs near the top
    step = run(alive, log_probs, [True] * 5)
    for b in range(5):
        candidates = sorted(
            ((alive[b, j] + log_probs[b, j, v], j, v) for j in range(k) for v in range(vocab)),
            key=lambda c: -c[0],
        )
        live = [c for c in candidates if c[2] != END_ID][:k]
        np.testing.assert_allclose(step["live_log_probs"][b], [c[0] for c in live], rtol=1e-6)
        np.testing.assert_array_equal(step["live_beam"][b], [c[1] for c in live])
        np.testing.assert_array_equal(step["live_token"][b], [c[2] for c in live])
        ends = [c[0] if c[2] == END_ID else -INF for c in candidates[:k]]
        np.testing.assert_allclose(step["end_log_probs"][b], ends, rtol=1e-6)


def test_keep_best_finished_merges_by_score():
    finished = {
        "scores": np.array([[-1.0, -3.0], [-INF, -INF], [-0.5, -INF]], dtype="float32"),
        "tokens": np.array(
            [[[4, 3, 0], [5, 5, 3]], [[0, 0, 0], [0, 0, 0]], [[3, 0, 0], [0, 0, 0]]], "int32"
        ),
        "lengths": np.array([[2, 3], [0, 0], [1, 0]], dtype="int32"),
    }
    new = {
        "scores": np.array([[-2.0, -INF], [-4.0, -0.7], [-INF, -INF]], dtype="float32"),
        "tokens": np.array(
            [[[4, 4, 3], [9, 9, 9]], [[5, 3, 0], [3, 0, 0]], [[9, 9, 9], [9, 9, 9]]], "int32"
        ),
        "lengths": np.array([[3, 9], [2, 1], [9, 9]], dtype="int32"),
    }
    merged = keep_best_finished(
        {key: ops.convert_to_tensor(x) for key, x in finished.items()},
        {key: ops.convert_to_tensor(x) for key, x in new.items()},
    )
    merged = {key: ops.convert_to_numpy(x) for key, x in merged.items()}
    assert set(merged) == {"scores", "tokens", "lengths"}
    np.testing.assert_allclose(merged["scores"], [[-1.0, -2.0], [-0.7, -4.0], [-0.5, -INF]])
    np.testing.assert_array_equal(
        merged["tokens"],
        [[[4, 3, 0], [4, 4, 3]], [[3, 0, 0], [5, 3, 0]], [[3, 0, 0], [0, 0, 0]]],
    )
    np.testing.assert_array_equal(merged["lengths"], [[2, 3], [1, 2], [1, 0]])


def test_gather_beams_picks_per_sentence():
    x = np.arange(2 * 3 * 2).reshape(2, 3, 2)
    picked = ops.convert_to_numpy(
        gather_beams(ops.convert_to_tensor(x), np.array([[2, 0], [1, 1]]))
    )
    np.testing.assert_array_equal(picked, [[x[0, 2], x[0, 0]], [x[1, 1], x[1, 1]]])
