"""The search tree of one sentence's beam search, recorded from the search that runs (pictures).

`beam_tree` runs `decode(..., "beam")` on one sentence step by step (``record``): the same loop,
step rule, scores, finished buffer and stopping rule as every beam search, only driven from
Python, and each step hands over its candidates. From them it draws the tree: the ``2 *
beam_size`` best extensions of each step, which of them stay live, which finish, and the top
next tokens of each live hypothesis. Its hypotheses are the search's result. It is slow (one
step at a time from Python): for the explorer page, not for translating files.

Example:
    >>> tree = beam_tree(model, [[5, 6, 7]], beam_size=2, max_length=10)
    >>> tree.hypotheses[0]["tokens"], [len(step["candidates"]) for step in tree.steps]
"""

import dataclasses
import math

import numpy as np
from keras import ops

from keras_nmt.decoding.decoding_model import DecodingModel
from keras_nmt.decoding.decoding_options import (
    DEFAULT_LENGTH_PENALTY,
    DEFAULT_MAX_LENGTH_A,
    DEFAULT_MAX_LENGTH_B,
)
from keras_nmt.decoding.loop import decode
from keras_nmt.special_ids import END_ID


@dataclasses.dataclass
class BeamTree:
    """The record of one sentence's beam search.

    Attributes:
        steps: one dict per decoding step ``t`` (0-based), with
            ``"candidates"``: the ``2 * beam_size`` best extensions of the live hypotheses, best
            first, each ``{"id", "parent", "token", "token_log_prob", "log_prob", "status"}``:
            ``id`` names the new node (``"t.j"``, ``j`` its rank), ``parent`` the extended node
            (``"root"`` at step 0), ``log_prob`` is the raw cumulative log-probability and
            ``status`` is ``"live"`` (kept as a live beam), ``"finished"`` (ended with ``END``
            within the top ``beam_size``: set aside, ``"score"`` added) or ``"pruned"``;
            ``"top_k"``: per live hypothesis extended, ``{"node", "tokens", "probs"}``, its
            ``top_k`` most probable next tokens and their probabilities.
        hypotheses: the result, best first: ``{"node", "tokens", "score", "log_prob",
            "token_log_probs", "finished"}`` (``tokens`` end with ``END_ID`` when finished).
        attention: per returned hypothesis, its attention rows ``(len(tokens), src_len)`` as
            nested lists, or ``None`` for a model without attention.
    """

    steps: list
    hypotheses: list
    attention: list | None


def beam_tree(
    model: DecodingModel,
    encoder_tokens,
    beam_size: int = 4,
    n_best: int | None = None,
    normalization: str = "gnmt",
    length_penalty: float = DEFAULT_LENGTH_PENALTY,
    max_length: int | None = None,
    max_length_a: float = DEFAULT_MAX_LENGTH_A,
    max_length_b: float = DEFAULT_MAX_LENGTH_B,
    top_k: int = 5,
) -> BeamTree:
    """Beam search on one sentence, recording each step (see the module docstring).

    Args:
        model: keeps the inference contract.
        encoder_tokens: int ``(1, src_len)`` padded with ``PAD_ID``: one sentence.
        beam_size, n_best, normalization, length_penalty, max_length, max_length_a,
            max_length_b: as for beam search (`keras_nmt.decoding.beam_search`).
        top_k: next tokens recorded per live hypothesis and step.

    Returns:
        A `BeamTree`.
    """
    ids = np.asarray(encoder_tokens, np.int32)
    if ids.ndim != 2 or ids.shape[0] != 1:
        raise ValueError(f"encoder_tokens must be one sentence (1, src_len), got {ids.shape}")
    record = []
    result = decode(
        model, ops.convert_to_tensor(ids), "beam", record=record, beam_size=beam_size,
        n_best=n_best, normalization=normalization, length_penalty=length_penalty,
        max_length=max_length, max_length_a=max_length_a, max_length_b=max_length_b,
        return_attention=bool(model.has_attention),
    )
    steps, paths = _steps(record, beam_size, top_k)
    by_path = {path: node for node, (path, _) in paths.items()}
    tokens, lengths, scores, log_probs = (
        np.asarray(ops.convert_to_numpy(x))[0]
        for x in (result.tokens, result.lengths, result.scores, result.log_probs))
    hypotheses, attention = [], [] if result.attention is not None else None
    for place in range(len(lengths)):
        if not math.isfinite(scores[place]):  # tiny vocabularies: fewer hypotheses than places
            continue
        hypothesis = [int(token) for token in tokens[place, : lengths[place]]]
        node = by_path[tuple(hypothesis)]
        hypotheses.append({
            "node": node, "tokens": hypothesis, "score": float(scores[place]),
            "log_prob": float(log_probs[place]), "token_log_probs": paths[node][1],
            "finished": bool(hypothesis) and hypothesis[-1] == END_ID,
        })
        if attention is not None:
            weights = np.asarray(ops.convert_to_numpy(result.attention))[0, place]
            attention.append(weights[: lengths[place]].astype(np.float32).tolist())
    return BeamTree(steps=steps, hypotheses=hypotheses, attention=attention)


def _steps(record, beam_size, top_k):
    """The tree's steps from the recorded candidates of each step (`beam_step`'s), and every
    node's ``(tokens, token_log_probs)`` path from the root."""
    k = beam_size
    paths = {"root": ((), [])}
    live = ["root"] + ["none"] * (k - 1)  # the node of each live beam (beams 1.. wait at -inf)
    live_log_probs = np.array([0.0] + [-math.inf] * (k - 1), np.float32)
    steps = []
    for t, record_step in enumerate(record):
        step = {key: value[0] for key, value in record_step.items()}  # the one sentence
        log_probs = step["log_probs"]  # (k, vocab)
        vocab = log_probs.shape[1]
        tops = []
        for beam, node in enumerate(live):
            if math.isfinite(live_log_probs[beam]):
                order = np.argsort(-log_probs[beam], kind="stable")[:top_k]
                tops.append({"node": node, "tokens": [int(i) for i in order],
                             "probs": [float(np.exp(log_probs[beam, i])) for i in order]})
        live_ranks = [int(rank) for rank in step["live_rank"]]
        candidates = []
        for rank, (index, value) in enumerate(zip(step["ranked"], step["ranked_log_probs"],
                                                  strict=True)):
            if not math.isfinite(value):
                continue
            beam, token = int(index) // vocab, int(index) % vocab
            parent = live[beam]
            node = f"{t}.{rank}"
            token_log_prob = float(log_probs[beam, token])
            path, token_log_probs = paths[parent]
            paths[node] = (path + (token,), token_log_probs + [token_log_prob])
            candidate = {"id": node, "parent": parent, "token": token,
                         "token_log_prob": token_log_prob, "log_prob": float(value),
                         "status": "pruned"}
            if token == END_ID and rank < k and step["is_finished"][rank]:
                candidate["status"] = "finished"
                candidate["score"] = float(step["end_scores"][rank])
            elif token != END_ID and rank in live_ranks:
                candidate["status"] = "live"
            candidates.append(candidate)
        steps.append({"candidates": candidates, "top_k": tops})
        live_log_probs = step["live_log_probs"]
        live = [f"{t}.{rank}" if math.isfinite(value) else "none"
                for rank, value in zip(live_ranks, live_log_probs, strict=True)]
    return steps, paths
