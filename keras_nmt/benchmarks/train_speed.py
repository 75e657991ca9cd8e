"""Training throughput of a compiled model on a fixed set of batches."""

import time

import numpy as np

from keras_nmt.special_ids import PAD_ID


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
    start = time.perf_counter()
    for step in range(warmup_steps):
        inputs, target = batches[step % len(batches)]
        model.train_on_batch(inputs, target)  # returns host floats: the step has finished
    warmup_seconds = time.perf_counter() - start
    step_seconds, tokens = [], 0
    for step in range(steps):
        index = (warmup_steps + step) % len(batches)
        inputs, target = batches[index]
        begin = time.perf_counter()
        model.train_on_batch(inputs, target)
        step_seconds.append(time.perf_counter() - begin)
        tokens += tokens_per_batch[index]
    seconds = sum(step_seconds)
    return {
        "tokens_per_second": tokens / seconds,
        "steps_per_second": steps / seconds,
        "seconds": seconds,
        "steps": steps,
        "tokens": tokens,
        "warmup_steps": warmup_steps,
        "warmup_seconds": warmup_seconds,
        "step_seconds": step_seconds,
    }
