"""Beam search for one sentence, one step at a time, recording the search tree (for pictures).

`beam_search` runs the whole batch in one graph loop and keeps only its results. This module
runs the same search (the same step rule, scores, finished buffer and stopping rule) eagerly on
one sentence, in plain Python over numpy arrays, and records every step: the candidates ranked,
which of them stay live, which finish, and the top next tokens of each live hypothesis. Its best
hypothesis equals `beam_search`'s (tokens and score; tested), so the tree shows what the real
search does. It is slow (one model call per step from Python): for the explorer page, not
for translating files.

Reference: the step rule of fairseq's `BeamSearch` (see `beam_search`'s docstring).

Example:
    >>> tree = beam_tree(model, [[5, 6, 7]], beam_size=2, max_length=10)
    >>> tree.hypotheses[0]["tokens"], [len(step["candidates"]) for step in tree.steps]
"""

import dataclasses
import math

import keras
import numpy as np
from keras import ops

from keras_nmt.decoding import scoring
from keras_nmt.decoding.decoding_model import DecodingModel
from keras_nmt.decoding.decoding_options import (
    DEFAULT_LENGTH_PENALTY,
    DEFAULT_MAX_LENGTH_A,
    DEFAULT_MAX_LENGTH_B,
)
from keras_nmt.decoding.length_limits import resolve_length_options
from keras_nmt.special_ids import END_ID, PAD_ID, START_ID


@dataclasses.dataclass
class BeamTree:
    """The record of one sentence's beam search.

    Attributes:
        steps: one dict per decoding step ``t`` (0-based), with
            ``"candidates"``: the ``2 * beam_size`` best extensions of the live hypotheses, best
            first, each ``{"id", "parent", "token", "token_log_prob", "log_prob", "status"}``:
            ``id`` names the new node (``"t.j"``), ``parent`` the extended node (``"root"`` at
            step 0), ``log_prob`` is the raw cumulative log-probability and ``status`` is
            ``"live"`` (kept as a live beam), ``"finished"`` (ended with ``END`` within the top
            ``beam_size``: set aside, ``"score"`` added) or ``"pruned"``;
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


@dataclasses.dataclass
class _Hypothesis:
    node: str
    tokens: list
    token_log_probs: list
    log_prob: float
    attention: list


def _normalized(log_prob, length, normalization, length_penalty):
    """`scoring.normalize_log_probs` of one hypothesis, in float32 as `beam_search` computes it."""
    value = scoring.normalize_log_probs(
        np.float32(log_prob), np.int32(length), normalization, length_penalty
    )
    return float(np.asarray(ops.convert_to_numpy(value), np.float32))


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

    The options are `beam_search`'s (without coverage); the search is the same: each step ranks
    the ``beam_size * vocab`` extensions of the live hypotheses by raw log-probability; those by
    ``END`` within the top ``beam_size`` finish (into a buffer of the ``beam_size`` best by
    normalized score); the ``beam_size`` best others stay live. The sentence stops when the
    buffer is full and the best live hypothesis, normalized at the length limit, cannot beat its
    worst entry, or at the limit ``min(max_length, ceil(a * source_len + b))``.

    Args:
        model: keeps the inference contract.
        encoder_tokens: int ``(1, src_len)`` padded with ``PAD_ID``: one sentence.
        beam_size, n_best, normalization, length_penalty, max_length, max_length_a,
            max_length_b: as for `beam_search`.
        top_k: next tokens recorded per live hypothesis and step.

    Returns:
        A `BeamTree`.
    """
    k = beam_size
    n_best = scoring.check_beam(beam_size, n_best)
    scoring.check_normalization(normalization, length_penalty)
    ids = np.asarray(encoder_tokens, np.int32)
    if ids.ndim != 2 or ids.shape[0] != 1:
        raise ValueError(f"encoder_tokens must be one sentence (1, src_len), got {ids.shape}")
    max_length = resolve_length_options(model, max_length, max_length_a, max_length_b)
    source_len = int(np.sum(ids != PAD_ID))
    limit = int(min(max(math.ceil(source_len * max_length_a + max_length_b), 1), max_length))

    memory = model.encode(ops.convert_to_tensor(ids))
    # k rows, one per beam, as `beam_search` feeds them (beams 1.. start at -inf).
    memory = keras.tree.map_structure(lambda x: ops.repeat(x, k, axis=0), memory)
    state = model.initial_state(memory, limit)
    # The stopping bound divides the best live log-probability by the normalizer at the limit.
    normalizer = float(ops.convert_to_numpy(
        scoring.length_normalizer(np.int32(limit), normalization, length_penalty)))

    alive = [_Hypothesis("root", [], [], 0.0 if j == 0 else -math.inf, []) for j in range(k)]
    finished = []  # (score, hypothesis), best first, at most k
    steps = []
    inputs = np.full((k,), START_ID, np.int32)
    for t in range(limit):
        logits, state, attention = model.decode_step(ops.convert_to_tensor(inputs), state, memory)
        log_probs = np.asarray(
            ops.convert_to_numpy(ops.log_softmax(ops.cast(logits, "float32"), axis=-1)), np.float32
        )  # (k, vocab)
        weights = None if attention is None else np.asarray(ops.convert_to_numpy(attention))
        vocab = log_probs.shape[1]
        alive_log_probs = np.array([h.log_prob for h in alive], np.float32)
        flat = (alive_log_probs[:, None] + log_probs).reshape(-1)
        # Best first; ties to the lower index (beam, then token), as `keras.ops.top_k`.
        best = np.argsort(-flat, kind="stable")[: 2 * k]

        step = {"candidates": [], "top_k": []}
        for j, hypothesis in enumerate(alive):
            if math.isfinite(hypothesis.log_prob):
                order = np.argsort(-log_probs[j], kind="stable")[:top_k]
                step["top_k"].append({
                    "node": hypothesis.node,
                    "tokens": [int(i) for i in order],
                    "probs": [float(np.exp(log_probs[j, i])) for i in order],
                })
        new_alive, new_finished = [], []
        for rank, index in enumerate(best):
            beam, token, value = int(index // vocab), int(index % vocab), float(flat[index])
            if not math.isfinite(value):
                continue
            parent = alive[beam]
            child = _Hypothesis(
                f"{t}.{rank}", parent.tokens + [token],
                parent.token_log_probs + [float(log_probs[beam, token])], value,
                parent.attention + ([] if weights is None else [weights[beam]]),
            )
            candidate = {"id": child.node, "parent": parent.node, "token": token,
                         "token_log_prob": child.token_log_probs[-1], "log_prob": value,
                         "status": "pruned"}
            if token == END_ID:
                if rank < k:
                    candidate["status"] = "finished"
                    candidate["score"] = _normalized(value, t + 1, normalization,
                                                     length_penalty)
                    new_finished.append((candidate["score"], child))
            elif len(new_alive) < k:
                candidate["status"] = "live"
                new_alive.append((beam, child))
            step["candidates"].append(candidate)
        steps.append(step)
        # The buffer keeps the k best by score; ties keep the older entries first.
        finished = sorted(finished + new_finished, key=lambda entry: -entry[0])[:k]
        origin = [beam for beam, _ in new_alive]
        alive = [child for _, child in new_alive]
        while len(alive) < k:  # tiny vocabularies: fewer finite extensions than beams
            origin.append(0)
            alive.append(_Hypothesis("none", [], [], -math.inf, []))
        rows = ops.convert_to_tensor(origin, "int32")
        state = keras.tree.map_structure(lambda x, rows=rows: ops.take(x, rows, axis=0), state)
        inputs = np.array([h.tokens[-1] if h.tokens else START_ID for h in alive], np.int32)
        full = len(finished) == k
        if full and alive[0].log_prob / normalizer <= finished[-1][0]:
            break

    live = sorted(
        ((_normalized(h.log_prob, len(h.tokens), normalization, length_penalty), h)
         for h in alive if math.isfinite(h.log_prob)),
        key=lambda entry: -entry[0],
    )
    chosen = [(score, h, True) for score, h in finished]
    chosen += [(score, h, False) for score, h in live]
    chosen = chosen[:n_best]
    hypotheses = [
        {"node": h.node, "tokens": h.tokens, "score": score, "log_prob": h.log_prob,
         "token_log_probs": h.token_log_probs, "finished": done}
        for score, h, done in chosen
    ]
    attention = None
    if model.has_attention:
        attention = [np.asarray(h.attention, np.float32).tolist() for _, h, _ in chosen]
    return BeamTree(steps=steps, hypotheses=hypotheses, attention=attention)
