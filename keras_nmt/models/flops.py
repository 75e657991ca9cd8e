"""How a model's forward FLOPs are counted: the pieces each model card's `forward_flops` adds up.

Conventions (those of Kaplan et al. 2020 and the PaLM MFU definition, Chowdhery et al. 2022):

* a matmul of `(m, k) x (k, n)` is `2 * m * n * k` FLOPs (one multiply and one add per term);
  element-wise work (activations, gates' products, softmax, layer norm, biases, masking) and
  embedding lookups are not counted (they are ~0 next to the matmuls);
* only real tokens count: a sentence of `S` source and `T` target tokens (non-padding, the
  decoder input `[START] + y` and the target `y + [END]` both have `T`) costs what the model
  would spend on it alone; work spent on padding is not "model FLOPs" (MFU counts useful work);
* training ~= 3 x forward (the backward pass costs two matmuls per forward matmul: the gradient
  with respect to the input and the one with respect to the weights).

A card's `forward_flops` (`ModelCard`) adds them up; `keras_nmt.workshop.benchmarks.flops` turns
the count into MFU.
"""


def dense_flops(tokens, input_dim, output_dim):
    """Forward FLOPs of a `Dense(output_dim)` on `tokens` vectors of size `input_dim`."""
    return 2 * tokens * input_dim * output_dim


def lstm_step_flops(input_dim, units):
    """Forward FLOPs of one LSTM step: four gates of `x W + h U`, `2 * 4 * units * (in + units)`."""
    return 2 * 4 * units * (input_dim + units)


def attention_pair_flops(dim):
    """Forward FLOPs per (query, key) pair of attention of width `dim`: `q . k` and `a * v`."""
    return 4 * dim


def lstm_stack_flops(tokens, embedding_dim, units, num_layers, bidirectional=False):
    """Forward FLOPs of a stack of `num_layers` LSTM layers on `tokens` steps: the first reads
    `embedding_dim` features, the others `units`; a bidirectional layer is two directions of
    `units // 2`."""
    total = 0.0
    for depth in range(num_layers):
        input_dim = embedding_dim if depth == 0 else units
        if bidirectional:
            total += 2 * lstm_step_flops(input_dim, units // 2)
        else:
            total += lstm_step_flops(input_dim, units)
    return tokens * total
