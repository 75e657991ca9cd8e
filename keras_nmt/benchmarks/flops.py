"""Analytic model FLOPs of the registered models, counted from their layer shapes.

Conventions (those of Kaplan et al. 2020 and the PaLM MFU definition, Chowdhery et al. 2022):

* a matmul of `(m, k) x (k, n)` is `2 * m * n * k` FLOPs (one multiply and one add per term);
  element-wise work (activations, gates' products, softmax, layer norm, biases, masking) and
  embedding lookups are not counted (they are ~0 next to the matmuls);
* only real tokens count: a sentence of `S` source and `T` target tokens (non-padding, the
  decoder input `[START] + y` and the target `y + [END]` both have `T`) costs what the model
  would spend on it alone; work spent on padding is not "model FLOPs" (MFU counts useful work);
* training ~= 3 x forward (the backward pass costs two matmuls per forward matmul: the gradient
  with respect to the input and the one with respect to the weights).

Forward FLOPs per sentence, with `E` embedding size, `U` units, `V` target vocabulary, `L`
layers (`U` = `d_model` for the Transformer), `lstm(i, u) = 2 * 4 * u * (i + u)` per step:

* `lstm`: encoder `S * sum_l lstm(in_l, U)` (`in_0 = E`, then `U`; bidirectional: two
  directions of `U / 2`), decoder `T * sum_l lstm(in_l, U)`, output `T * 2 * U * V`.
* `luong`: `lstm` plus the memory projection `S * 2 * U * U` (score "general" or "concat"),
  the query projection `T * 2 * U * U` ("concat" only), scores and context `S * T * (2U + 2U)`
  ("concat" adds `2U` per pair for `v`), the attentional layer `T * 2 * 2U * U`.
* `bahdanau` (`A` attention units): encoder `S * 2 * lstm(E, U)` (bidirectional, `U` per
  direction), bridges `2 * 2 * 2U * U`, keys `S * 2 * 2U * A`; per target step the query
  `2 * U * A`, the cell `lstm(E + 2U, U)`, per source position the score `2 * A` (`v`) and the
  context `2 * 2U`; output hidden `T * 2 * (3U [+ E with deep output]) * U`, output `T * 2UV`.
* `transformer` (`F` feed-forward size): each encoder layer `S * (8 D^2 + 4 D F)` (Q, K, V, O
  projections and the two feed-forward matmuls) plus `S^2 * 4D` (scores `QK^T` and context
  `AV`, all heads); each decoder layer `T * (8 D^2 + 4 D^2 + 4 D F)` (self-attention
  projections, cross-attention Q and O), `S * 4 D^2` (cross-attention K and V of the memory),
  `T^2 * 4D` (self-attention, counted as computed: the full square, masked) and `T * S * 4D`
  (cross-attention); output `T * 2 * D * V`. That is the usual "2 x parameters per token" plus
  the attention terms.
* `convs2s` (`C` channels, `k` kernel size, `E` = the embedding size): the encoder's projections
  in and out `S * 4EC`, each encoder layer's convolution `S * 2 * kC * 2C` (`2C` outputs for the
  gated linear unit); the decoder's projection in `T * 2EC`, each decoder layer's convolution
  `T * 4kC^2` and attention projections `T * 4CE` plus `T * S * 4E` (scores and context);
  output `T * 2CE + T * 2EV`. Incremental decoding computes one column per step: the same count.
"""

import numpy as np


def dense_flops(tokens, input_dim, output_dim):
    """Forward FLOPs of a `Dense(output_dim)` on `tokens` vectors of size `input_dim`."""
    return 2 * tokens * input_dim * output_dim


def lstm_step_flops(input_dim, units):
    """Forward FLOPs of one LSTM step: four gates of `x W + h U`, `2 * 4 * units * (in + units)`."""
    return 2 * 4 * units * (input_dim + units)


def attention_pair_flops(dim):
    """Forward FLOPs per (query, key) pair of attention of width `dim`: `q . k` and `a * v`."""
    return 4 * dim


def _lstm_layers(tokens, embedding_dim, units, num_layers, bidirectional=False):
    total = 0.0
    for depth in range(num_layers):
        input_dim = embedding_dim if depth == 0 else units
        if bidirectional:
            total += 2 * lstm_step_flops(input_dim, units // 2)
        else:
            total += lstm_step_flops(input_dim, units)
    return tokens * total


def _recurrent(config, s, t, vocab):
    e, u, layers = config["embedding_dim"], config["units"], config.get("num_layers", 1)
    encoder = _lstm_layers(s.sum(), e, u, layers, config.get("bidirectional", False))
    decoder = _lstm_layers(t.sum(), e, u, layers)
    return encoder + decoder + dense_flops(t.sum(), u, vocab)


def _luong(config, s, t, vocab):
    u = config["units"]
    score = config.get("attention_score", "general")
    total = _recurrent(config, s, t, vocab)
    pair = attention_pair_flops(u) + (2 * u if score == "concat" else 0)
    total += (s * t).sum() * pair
    if score in ("general", "concat"):
        total += dense_flops(s.sum(), u, u)
    if score == "concat":
        total += dense_flops(t.sum(), u, u)
    return total + dense_flops(t.sum(), 2 * u, u)  # attentional layer on [context; h]


def _bahdanau(config, s, t, vocab):
    e, u = config["embedding_dim"], config["units"]
    a = config.get("attention_units") or u
    total = s.sum() * 2 * lstm_step_flops(e, u)  # bidirectional, u per direction
    total += len(s) * 2 * dense_flops(1, 2 * u, u)  # bridge_h, bridge_c
    total += dense_flops(s.sum(), 2 * u, a)  # keys
    total += t.sum() * (dense_flops(1, u, a) + lstm_step_flops(e + 2 * u, u))
    total += (s * t).sum() * (2 * a + 2 * 2 * u)  # score v . tanh(...) and context
    hidden_in = 3 * u + (e if config.get("deep_output", False) else 0)
    total += dense_flops(t.sum(), hidden_in, u) + dense_flops(t.sum(), u, vocab)
    return total


def _transformer(config, s, t, vocab):
    d, f, layers = config["d_model"], config["ff_dim"], config["num_layers"]
    encoder = s.sum() * (8 * d * d + 4 * d * f) + (s * s).sum() * attention_pair_flops(d)
    decoder = (t.sum() * (12 * d * d + 4 * d * f) + s.sum() * 4 * d * d
               + ((t * t).sum() + (t * s).sum()) * attention_pair_flops(d))
    return layers * (encoder + decoder) + dense_flops(t.sum(), d, vocab)


def _convs2s(config, s, t, vocab):
    e, c, k, layers = (config["embedding_dim"], config["channels"], config["kernel_size"],
                       config["num_layers"])
    convolution = 2 * k * c * 2 * c  # per position: k columns of C in, 2C out
    encoder = s.sum() * (2 * dense_flops(1, e, c) + layers * convolution)
    decoder = (t.sum() * (dense_flops(1, e, c) + layers * (convolution + 2 * dense_flops(1, c, e)))
               + layers * (s * t).sum() * attention_pair_flops(e))
    return encoder + decoder + dense_flops(t.sum(), c, e) + dense_flops(t.sum(), e, vocab)


_COUNTERS = {"lstm": _recurrent, "luong": _luong, "bahdanau": _bahdanau,
             "transformer": _transformer, "convs2s": _convs2s}


def forward_flops(model_name, config, source_lengths, target_lengths):
    """Forward model FLOPs of a batch (see the module docstring for the formulas).

    Args:
        model_name: `"lstm"`, `"luong"`, `"bahdanau"`, `"transformer"` or `"convs2s"`.
        config: the model's `get_config()` (needs `target_vocab_size` and its size options).
        source_lengths: real (non-padding) source tokens of each sentence.
        target_lengths: real target tokens of each sentence (`y + [END]`).

    Returns:
        A float: FLOPs of one forward pass over these sentences.
    """
    if model_name not in _COUNTERS:
        raise ValueError(f"no FLOP counter for model {model_name!r}; known: {sorted(_COUNTERS)}")
    s, t = (np.asarray(x, dtype=np.float64) for x in (source_lengths, target_lengths))
    if s.shape != t.shape:
        raise ValueError(f"{s.shape[0]} source lengths but {t.shape[0]} target lengths")
    return float(_COUNTERS[model_name](config, s, t, config["target_vocab_size"]))


def training_flops(model_name, config, source_lengths, target_lengths):
    """Training-step model FLOPs of a batch: 3 x `forward_flops` (forward + backward)."""
    return 3.0 * forward_flops(model_name, config, source_lengths, target_lengths)
