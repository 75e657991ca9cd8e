"""What every speed measurement shares, NumPy only (the JAX benchmark imports no TensorFlow).

* `measure_train_speed`, `batch_lengths`: training throughput of a compiled model on fixed
  batches, and the real token counts that its FLOPs are computed from.
* `source_batches`: id rows -> padded source batches, for every decoding measurement.
* `synthetic_lengths`, `token_batches`, `random_rows`: random ids of realistic lengths, for a
  machine with no corpus or tokenizer at hand. Speed depends on the token ids only through the
  shapes (and the padding), so random ids suffice. Lengths are log-normal, as sentence lengths
  in parallel corpora roughly are: by default a median of 20 target tokens (about a WMT
  sentence in subwords; Tatoeba's are shorter) with a long right tail, sources a noisy multiple
  of their target. Batches hold sentences of similar length up to a budget of padded tokens
  (fairseq's `--max-tokens`): the batch size varies with the length.
"""

import itertools

import numpy as np

from keras_nmt.benchmarks.flops import training_flops
from keras_nmt.special_ids import END_ID, NUM_RESERVED, PAD_ID, START_ID
from keras_nmt.timing import time_call

# The compute dtype of each `--precisions` policy (the dtype of its peak matmul).
COMPUTE_DTYPES = {"float32": "float32", "mixed_bfloat16": "bfloat16", "mixed_float16": "float16"}


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


def train_measurement(model, name, batches, steps, peak):
    """`measure_train_speed` of a compiled registry model, with its FLOPs and MFU.

    Args:
        model, batches, steps: see `measure_train_speed`.
        name: the model's registry name (its FLOPs formula, `flops.training_flops`).
        peak: a `keras_nmt.hardware.peak.measure_peak_matmul` result.

    Returns:
        `measure_train_speed`'s dict and `median_step_seconds`, `train_flops_per_token`,
        `achieved_flops_per_second`, `peak_flops_per_second`, `peak_dtype`, `peak_size`, `mfu`,
        `parameters`.
    """
    result = measure_train_speed(model, batches, steps=steps)
    source_lengths, target_lengths = batch_lengths(batches)
    per_token = training_flops(name, model.get_config(), source_lengths, target_lengths)
    per_token /= target_lengths.sum()
    achieved = per_token * result["tokens_per_second"]
    return {
        **result,
        "median_step_seconds": sorted(result["step_seconds"])[len(result["step_seconds"]) // 2],
        "train_flops_per_token": per_token,
        "achieved_flops_per_second": achieved,
        "peak_flops_per_second": peak["flops_per_second"],
        "peak_dtype": peak["dtype"],
        "peak_size": peak.get("size"),
        "mfu": achieved / peak["flops_per_second"],
        "parameters": int(model.count_params()),
    }


def time_decoding(decode_lengths, batches, warmup_batches):
    """Sentences/s of `decode_lengths(ids) -> output lengths` over `batches`.

    `warmup_batches` are decoded first, untimed and timed apart: they hold tracing and
    compilation (one batch per shape where each shape compiles).

    Returns:
        A dict: `sentences_per_second`, `seconds`, `sentences`, `mean_output_length` (tokens of
        the best hypothesis, END included), `max_output_length`, `warmup_seconds`.
    """
    timing = time_call(
        # A host copy of the lengths: the decode has finished.
        lambda: [np.asarray(decode_lengths(ids)) for ids in batches],
        warmup=lambda: [np.asarray(decode_lengths(ids)) for ids in warmup_batches],
    )
    lengths = np.concatenate(timing.result)
    return {
        "sentences_per_second": len(lengths) / timing.total,
        "seconds": timing.total,
        "sentences": int(len(lengths)),
        "mean_output_length": float(np.mean(lengths)),
        "max_output_length": int(np.max(lengths)),
        "warmup_seconds": timing.warmup_seconds,
    }


def source_batches(rows, batch_size=64):
    """Source id rows, `batch_size` at a time, as int32 `(batch, longest)` arrays padded with 0.

    Args:
        rows: id sequences (lists or arrays), in the order to batch them.
        batch_size: sentences per batch.

    Example:
        >>> [b.tolist() for b in source_batches([[5, 6], [7], [8, 9, 10]], batch_size=2)]
        [[[5, 6], [7, 0]], [[8, 9, 10]]]
    """
    batches = []
    for start in range(0, len(rows), batch_size):
        chunk = rows[start : start + batch_size]
        ids = np.full((len(chunk), max(len(row) for row in chunk)), PAD_ID, np.int32)
        for i, row in enumerate(chunk):
            ids[i, : len(row)] = row
        batches.append(ids)
    return batches


def random_rows(lengths, vocab_size, rng):
    """One row of random ids in `[NUM_RESERVED, vocab_size)` per length (`rng`: a Generator)."""
    return [rng.integers(NUM_RESERVED, vocab_size, int(n)).astype(np.int32) for n in lengths]


def synthetic_lengths(count, rng, median=20.0, spread=0.5, ratio=1.0, max_length=96):
    """`(source_lengths, target_lengths)`, int arrays of `count` sentence lengths.

    Target lengths are `exp(N(log median, spread^2))` (END included), sources `ratio` times their
    target with a log-normal noise of spread 0.15; both are clipped to `[2, max_length]`.

    Args:
        count: number of sentences.
        rng: a `numpy.random.Generator`.
        median: median target length in tokens.
        spread: standard deviation of the log length.
        ratio: median source / target length ratio.
        max_length: the longest sentence (tokens, END or START included).
    """
    target = np.exp(rng.normal(np.log(median), spread, count))
    source = target * ratio * np.exp(rng.normal(0.0, 0.15, count))
    clip = lambda x: np.clip(np.rint(x), 2, max_length).astype(np.int64)  # noqa: E731
    return clip(source), clip(target)


def token_batches(
    source_lengths,
    target_lengths,
    tokens_per_batch,
    source_vocab_size,
    target_vocab_size,
    rng,
    length_multiple=8,
    max_batches=None,
):
    """Length-bucketed batches of random ids, each within `tokens_per_batch` padded tokens.

    Sentences are sorted by target length and cut into consecutive groups whose padded size
    `batch * max(padded source length, padded target length)` stays within the budget; lengths
    are padded up to a multiple of `length_multiple` (fewer distinct shapes: fewer compilations)
    and batch sizes rounded down to a multiple of 8 when over 8. The groups are returned in a
    random order (at most `max_batches` of them, spread over the length range).

    Args:
        source_lengths, target_lengths: int arrays from `synthetic_lengths`.
        tokens_per_batch: the padded-token budget of one batch.
        source_vocab_size, target_vocab_size: ids are drawn from `[NUM_RESERVED, vocab)`.
        rng: a `numpy.random.Generator`.
        length_multiple: the padded lengths' multiple.
        max_batches: keep at most this many batches (None: all).

    Returns:
        `[({"encoder_tokens": (batch, S), "decoder_tokens": (batch, T)}, targets (batch, T))]`,
        int32, as `keras_nmt.data.make_dataset` yields them (`decoder_tokens` = START + y,
        `targets` = y + END, padded with `PAD_ID`).
    """
    order = np.argsort(target_lengths, kind="stable")
    padded = lambda n: -(-int(n) // length_multiple) * length_multiple  # noqa: E731
    groups, start = [], 0
    while start < len(order):
        end, width = start, 0
        while end < len(order):
            index = order[end]
            wider = max(width, padded(source_lengths[index]), padded(target_lengths[index]))
            if (end + 1 - start) * wider > tokens_per_batch and end > start:
                break
            end, width = end + 1, wider
        size = end - start
        size = size - size % 8 if size > 8 else size
        groups.append(order[start : start + size])
        start += size
    if max_batches is not None and len(groups) > max_batches:
        keep = np.linspace(0, len(groups) - 1, max_batches).round().astype(int)
        groups = [groups[i] for i in keep]
    batches = [
        _batch(source_lengths[g], target_lengths[g], source_vocab_size, target_vocab_size,
               rng, padded)
        for g in groups
    ]
    return [batches[i] for i in rng.permutation(len(batches))]


def _batch(source_lengths, target_lengths, source_vocab, target_vocab, rng, padded):
    batch = len(source_lengths)
    source_width = padded(source_lengths.max())
    target_width = padded(target_lengths.max())
    source = rng.integers(NUM_RESERVED, source_vocab, (batch, source_width)).astype(np.int32)
    words = rng.integers(NUM_RESERVED, target_vocab, (batch, target_width)).astype(np.int32)
    decoder = np.full((batch, target_width), PAD_ID, np.int32)
    targets = np.full((batch, target_width), PAD_ID, np.int32)
    for row, (s, t) in enumerate(zip(source_lengths, target_lengths, strict=True)):
        source[row, s:] = PAD_ID
        decoder[row, 0] = START_ID
        decoder[row, 1:t] = words[row, : t - 1]
        targets[row, : t - 1] = words[row, : t - 1]
        targets[row, t - 1] = END_ID
    return {"encoder_tokens": source, "decoder_tokens": decoder}, targets
