"""Training throughput of a compiled model on a fixed set of batches."""

import itertools

import numpy as np

from keras_nmt.special_ids import PAD_ID
from keras_nmt.timing import time_call


def batch_lengths(batches):
    """Real (non-padding) `(source_lengths, target_lengths)` of every sentence of `batches`.

    Args:
        batches: `[(inputs, targets), ...]` as `keras_nmt.data.make_dataset` yields them.
    """
    sources, targets = [], []
    for inputs, target in batches:
        sources.append(np.sum(np.asarray(inputs["encoder_tokens"]) != PAD_ID, axis=1))
        targets.append(np.sum(np.asarray(target) != PAD_ID, axis=1))
    return np.concatenate(sources), np.concatenate(targets)


def measure_train_speed(model, batches, steps, warmup_steps=None):
    """Non-padding target tokens per second of `model.train_on_batch` over `steps` timed steps.

    The batches are used in turn (step `i` trains on `batches[i % len(batches)]`). The warm-up
    steps (default: one pass over `batches`, so every batch shape is traced, and with XLA
    compiled, before timing) are timed separately: they hold tracing and compilation.

    Args:
        model: a compiled Keras model.
        batches: `[(inputs, targets), ...]` (tensors or arrays).
        steps: timed steps.
        warmup_steps: untimed steps first (at least 1).

    Returns:
        A dict: `tokens_per_second`, `steps_per_second`, `seconds` (timed), `steps`,
        `tokens` (target tokens of the timed steps), `warmup_steps`, `warmup_seconds`,
        `step_seconds` (each timed step).
    """
    if not batches:
        raise ValueError("need at least one batch")
    warmup_steps = len(batches) if warmup_steps is None else max(1, warmup_steps)
    tokens_per_batch = [
        int(np.sum(np.asarray(target) != PAD_ID)) for _, target in batches
    ]
    order = itertools.cycle(batches)

    def step():
        model.train_on_batch(*next(order))  # returns host floats: the step has finished

    timing = time_call(step, repeats=steps, warmup=lambda: [step() for _ in range(warmup_steps)])
    tokens = sum(tokens_per_batch[(warmup_steps + s) % len(batches)] for s in range(steps))
    return {
        "tokens_per_second": tokens / timing.total,
        "steps_per_second": steps / timing.total,
        "seconds": timing.total,
        "steps": steps,
        "tokens": tokens,
        "warmup_steps": warmup_steps,
        "warmup_seconds": timing.warmup_seconds,
        "step_seconds": list(timing.seconds),
    }
