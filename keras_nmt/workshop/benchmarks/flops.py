"""Model FLOPs of the registered models: each card's formula (`ModelCard.forward_flops`, in
`keras_nmt/models/<name>/__init__.py`), counted as `keras_nmt/models/flops.py` says (a matmul
`(m, k) x (k, n)` is `2mnk`, only real tokens count, training is 3 x forward; Kaplan et al.
2020, the PaLM MFU definition of Chowdhery et al. 2022).
"""

import numpy as np

from keras_nmt.models.registry import MODEL_NAMES, card


def forward_flops(model_name, config, source_lengths, target_lengths):
    """Forward model FLOPs of a batch (the formula: the model card's `forward_flops`).

    Args:
        model_name: a registered model's name.
        config: the model's `get_config()` (needs `target_vocab_size` and its size options).
        source_lengths: real (non-padding) source tokens of each sentence.
        target_lengths: real target tokens of each sentence (`y + [END]`).

    Returns:
        A float: FLOPs of one forward pass over these sentences.
    """
    if model_name not in MODEL_NAMES:
        raise ValueError(f"no FLOP counter for model {model_name!r}; known: {list(MODEL_NAMES)}")
    counter = card(model_name).forward_flops
    s, t = (np.asarray(x, dtype=np.float64) for x in (source_lengths, target_lengths))
    if s.shape != t.shape:
        raise ValueError(f"{s.shape[0]} source lengths but {t.shape[0]} target lengths")
    return float(counter(config, s, t))


def training_flops(model_name, config, source_lengths, target_lengths):
    """Training-step model FLOPs of a batch: 3 x `forward_flops` (forward + backward)."""
    return 3.0 * forward_flops(model_name, config, source_lengths, target_lengths)
