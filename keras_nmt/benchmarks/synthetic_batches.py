"""Synthetic token batches for speed measurements: realistic lengths, token-based batch sizes.

Speed depends on the token ids only through the shapes (and the padding), so random ids suffice
where no corpus or tokenizer is at hand (a GPU machine with JAX but without TensorFlow). Lengths
are log-normal, as sentence lengths in parallel corpora roughly are: by default a median of 20
target tokens (about a WMT sentence in subwords; Tatoeba's are shorter) with a long right tail,
sources a noisy multiple of their target. Batches hold sentences of similar length up to a
budget of padded tokens (fairseq's `--max-tokens`): the batch size varies with the length.
NumPy only.
"""

import numpy as np

from keras_nmt.special_ids import END_ID, NUM_RESERVED, PAD_ID, START_ID


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


def source_batches(source_lengths, vocab_size, rng, batch_size=64):
    """Random source ids in corpus order (unsorted), `batch_size` rows each, right-padded.

    Args:
        source_lengths: int array from `synthetic_lengths`.
        vocab_size: ids are drawn from `[NUM_RESERVED, vocab_size)`.
        rng: a `numpy.random.Generator`.
        batch_size: sentences per batch.

    Returns:
        A list of int32 `(batch, longest)` arrays.
    """
    batches = []
    for start in range(0, len(source_lengths), batch_size):
        lengths = source_lengths[start : start + batch_size]
        ids = rng.integers(NUM_RESERVED, vocab_size, (len(lengths), lengths.max()))
        ids[np.arange(lengths.max()) >= lengths[:, None]] = PAD_ID
        batches.append(ids.astype(np.int32))
    return batches
