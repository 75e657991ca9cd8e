"""Tiny fake models keeping the inference contract, with hand-set probabilities.

The next-token logits depend on the whole target prefix (through an integer code kept in the
state), optionally on the source (a bias from the source token counts, ignoring padding) and on
a nested state leaf (the previous input), so beam reordering errors change the numbers.
"""

import itertools

import numpy as np
from keras import ops

from keras_nmt.special_ids import END_ID, START_ID

VOCAB = 8  # ids 0-3 reserved (PAD, UNK, START, END), 4-7 real tokens
REAL_TOKENS = (4, 5, 6, 7)
NUM_CODES = VOCAB**4


def prefix_code(prefix):
    """The state code of a target prefix (list of ids after START)."""
    code = 0
    for token in prefix:
        code = (code * VOCAB + token) % NUM_CODES
    return code


def random_table(seed, sharpness=2.0, end_bias=0.0):
    """Log-probabilities ``(NUM_CODES, VOCAB)``, peaked, over END and the real tokens."""
    rng = np.random.default_rng(seed)
    table = np.full((NUM_CODES, VOCAB), -np.inf, dtype=np.float32)
    allowed = [END_ID, *REAL_TOKENS]
    logits = rng.normal(size=(NUM_CODES, len(allowed))) * sharpness
    logits[:, 0] += end_bias
    table[:, allowed] = logits - np.log(np.exp(logits).sum(axis=1, keepdims=True))
    return table


def table_from_rows(rows, default=None):
    """A table whose row ``prefix_code(prefix)`` gets the probabilities ``rows[prefix]``.

    Args:
        rows: dict ``tuple(prefix) -> {token: probability}`` (must sum to 1 over END + real).
        default: probabilities for the other rows (uniform over END + real tokens if None).
    """
    allowed = [END_ID, *REAL_TOKENS]
    table = np.full((NUM_CODES, VOCAB), -np.inf, dtype=np.float32)
    default = default or {token: 1.0 / len(allowed) for token in allowed}
    for token, p in default.items():
        table[:, token] = np.log(p)
    for prefix, probs in rows.items():
        row = np.full((VOCAB,), -np.inf, dtype=np.float32)
        for token, p in probs.items():
            row[token] = np.log(p)
        table[prefix_code(prefix)] = row
    return table


class FakeModel:
    """Logits = table[prefix code] + source bias + prev-token term; optional fake attention.

    Args:
        table: float32 ``(NUM_CODES, VOCAB)`` logits (``-inf`` for impossible tokens).
        has_attention: return a ``(batch, src_len)`` attention from ``decode_step``.
        source_weight: weight of the source token counts in the logits (0: source-free).
        prev_weight: weight of the one-hot of the token before the current input (kept in a
            nested state leaf).
    """

    def __init__(self, table, has_attention=False, source_weight=0.0, prev_weight=0.0):
        self.table = np.asarray(table, dtype=np.float32)
        self.has_attention = has_attention
        self.source_weight = source_weight
        self.prev_weight = prev_weight
        self.calls = 0

    def encode(self, encoder_tokens):
        encoder_tokens = ops.convert_to_tensor(encoder_tokens, dtype="int32")
        mask = ops.not_equal(encoder_tokens, 0)
        counts = ops.sum(
            ops.one_hot(encoder_tokens, VOCAB) * ops.cast(mask, "float32")[..., None], axis=1
        )
        return {
            "source_mask": mask,
            "bias": self.source_weight * counts,
            "tokens": encoder_tokens,
        }

    def initial_state(self, memory, max_length):
        batch = ops.shape(memory["source_mask"])[0]
        return {
            "code": ops.zeros((batch,), dtype="int32"),
            "nested": {
                "prev": ops.zeros((batch,), dtype="int32"),
                "cache": ops.zeros((batch, max_length), dtype="float32"),
            },
        }

    def decode_step(self, token, state, memory):
        self.calls += 1
        code = ops.where(
            ops.equal(token, START_ID), 0, ops.mod(state["code"] * VOCAB + token, NUM_CODES)
        )
        logits = ops.take(ops.convert_to_tensor(self.table), code, axis=0)
        logits = logits + memory["bias"] + self.prev_weight * ops.one_hot(
            state["nested"]["prev"], VOCAB
        )
        new_state = {
            "code": code,
            "nested": {"prev": token, "cache": state["nested"]["cache"] + 1.0},
        }
        attention = None
        if self.has_attention:
            mask = memory["source_mask"]
            positions = ops.cast(ops.arange(ops.shape(mask)[1]), "float32")
            # The code modulo a small prime: a sine of a few radians, not of a thousand, where
            # one rounding step of its argument (an XLA fusion's, say) moves it by 1e-4.
            energy = 2.0 * ops.sin(
                ops.cast(ops.mod(code, 61), "float32")[:, None] * 0.37
                + positions[None, :] * 1.3
                + ops.cast(memory["tokens"], "float32") * 0.5
            )
            # A masked softmax written out (keras warns on softmax over an axis of size 1).
            weights = ops.where(mask, ops.exp(energy), 0.0)
            attention = weights / ops.sum(weights, axis=-1, keepdims=True)
        return logits, new_state, attention


def all_sentences(max_length):
    """Every complete sentence (real tokens then END) with at most ``max_length`` tokens."""
    out = []
    for n in range(max_length):
        for body in itertools.product(REAL_TOKENS, repeat=n):
            out.append([*body, END_ID])
    return out


def teacher_forced(model, source, hypotheses):
    """Re-runs the model on each hypothesis (inputs START + hypothesis[:-1]).

    Args:
        model: a FakeModel (or any contract model).
        source: int ``(src_len,)`` one source sentence (may hold trailing padding).
        hypotheses: list of token lists.

    Returns:
        (log_probs float64 ``(n,)``, coverage ``(n, src_len)`` or None, per-step attention list).
    """
    n = len(hypotheses)
    longest = max(len(h) for h in hypotheses)
    targets = np.zeros((n, longest), dtype=np.int32)
    for i, h in enumerate(hypotheses):
        targets[i, : len(h)] = h
    sources = np.tile(np.asarray(source, dtype=np.int32)[None, :], (n, 1))
    memory = model.encode(sources)
    state = model.initial_state(memory, longest)
    token = np.full((n,), START_ID, dtype=np.int32)
    total = np.zeros((n,), dtype=np.float64)
    coverage = np.zeros((n, sources.shape[1])) if model.has_attention else None
    attentions = []
    for t in range(longest):
        logits, state, attention = model.decode_step(ops.convert_to_tensor(token), state, memory)
        log_probs = ops.convert_to_numpy(ops.log_softmax(ops.cast(logits, "float32"), axis=-1))
        valid = np.array([t < len(h) for h in hypotheses])
        picked = log_probs[np.arange(n), targets[:, t]]
        total += np.where(valid, picked, 0.0)
        if attention is not None:
            attention = ops.convert_to_numpy(attention)
            coverage += np.where(valid[:, None], attention, 0.0)
            attentions.append(attention)
        token = targets[:, t]
    return total, coverage, attentions


def next_log_probs(model, source, prefixes):
    """Log-probabilities ``(n, VOCAB)`` of the token after each prefix (a list of id lists)."""
    n = len(prefixes)
    sources = np.tile(np.asarray(source, dtype=np.int32)[None, :], (n, 1))
    memory = model.encode(sources)
    longest = max(len(p) for p in prefixes)
    state = model.initial_state(memory, longest + 1)
    token = np.full((n,), START_ID, dtype=np.int32)
    out = np.zeros((n, VOCAB))
    for t in range(longest + 1):
        logits, state, _ = model.decode_step(ops.convert_to_tensor(token), state, memory)
        log_probs = ops.convert_to_numpy(ops.log_softmax(ops.cast(logits, "float32"), axis=-1))
        for i, p in enumerate(prefixes):
            if len(p) == t:
                out[i] = log_probs[i]
        token = np.array([p[t] if t < len(p) else 0 for p in prefixes], dtype=np.int32)
    return out
