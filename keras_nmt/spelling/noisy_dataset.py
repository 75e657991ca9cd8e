"""Training batches with fresh noise every pass over the clean sentences.

Why a generator instead of `keras_nmt.data.make_dataset`: `make_dataset` tokenizes a fixed list
of pairs once, so the model would see the same misspellings every epoch and could memorise them.
Here a Python generator (`tf.data.Dataset.from_generator`) walks over the clean sentences forever;
pass ``p`` shuffles them and draws the noise with ``random.Random(f"{seed}:{p}")``, so every pass
has new misspellings, and the whole stream depends only on ``seed`` (the same seed gives the same
batches in the same order). The generator tokenizes each batch of strings with one vectorized,
eager ``tokenize`` call per side (not in a tf.data ``map``: the SentencePiece resource of the
subword tokenizer cannot be built inside that graph) and yields exactly the batches of
`make_dataset`::

    ({"encoder_tokens": int32 (batch, src_len), "decoder_tokens": int32 (batch, tgt_len)},
     targets int32 (batch, tgt_len))

with ``decoder_tokens = [START] + y``, ``targets = y + [END]`` and padding 0. Like
`make_dataset`, sentences of similar length share a batch (each window of ``bucket_window``
batches is sorted by clean length, then the batches of the pass are shuffled).

The dataset never ends: pass ``steps_per_epoch(len(clean), batch_size)`` to ``fit`` (through
`TrainConfig.steps_per_epoch`), which keeps one iterator over all epochs, so epoch ``e`` is pass
``e`` when one epoch is one pass. A run resumed from its backup starts the noise stream again from
pass 0 (still deterministic, but not the stream an uninterrupted run would have seen).
"""

import math
import random

import tensorflow as tf

from keras_nmt.data.noise import NoiseGenerator

DEFAULT_BUCKET_WINDOW = 100


def steps_per_epoch(num_sentences, batch_size):
    """Batches in one pass over ``num_sentences`` (the last one may be smaller)."""
    return math.ceil(num_sentences / batch_size)


def noisy_batches(clean, generator, batch_size, seed=0, bucket_window=DEFAULT_BUCKET_WINDOW):
    """Yields ``(noisy, clean)`` lists of ``batch_size`` strings forever, pass after pass.

    Args:
        clean: the clean training sentences.
        generator: a `NoiseGenerator`; its own ``rng`` is not used (each pass has its own).
        batch_size: sentences per batch.
        seed: pass ``p`` uses ``random.Random(f"{seed}:{p}")`` for order and noise.
        bucket_window: batches per window sorted by length (see the module docstring).
    """
    clean = list(clean)
    window = bucket_window * batch_size
    passes = 0
    while True:
        rng = random.Random(f"{seed}:{passes}")
        order = list(range(len(clean)))
        rng.shuffle(order)
        batches = []
        for start in range(0, len(order), window):
            chunk = sorted(order[start : start + window], key=lambda i: len(clean[i]))
            batches += [chunk[b : b + batch_size] for b in range(0, len(chunk), batch_size)]
        rng.shuffle(batches)
        for batch in batches:
            targets = [clean[i] for i in batch]
            yield [generator.corrupt(text, rng) for text in targets], targets
        passes += 1


def make_noisy_dataset(
    clean,
    generator: NoiseGenerator,
    source_tokenizer,
    target_tokenizer,
    batch_size=64,
    *,
    seed=0,
    max_length=None,
    bucket_window=DEFAULT_BUCKET_WINDOW,
):
    """The infinite training dataset of fresh ``(noisy -> clean)`` batches.

    Args:
        clean: clean training sentences (never altered: they are the targets).
        generator: the `NoiseGenerator` making the sources.
        source_tokenizer, target_tokenizer: built tokenizers (see CONTRIBUTING.md).
        batch_size: sentences per batch.
        seed: seed of the noise and the order (see the module docstring).
        max_length: clean sentences whose target (``y + [END]``) or clean source is longer than
            this many tokens are dropped up front, as `make_dataset` would; noisy sources are
            cut to ``max_length`` in case the noise made one longer.
        bucket_window: batches per sorting window.

    Returns:
        An endless ``tf.data.Dataset`` in the format of `keras_nmt.data.make_dataset`; train on it
        with ``steps_per_epoch``.
    """
    clean = list(clean)
    if max_length is not None:
        source_lengths = source_tokenizer.tokenize(clean).row_lengths().numpy()
        target_lengths = target_tokenizer.tokenize(clean, add_end=True).row_lengths().numpy()
        clean = [
            text
            for text, s, t in zip(clean, source_lengths, target_lengths, strict=True)
            if 0 < s <= max_length and t <= max_length
        ]
    if not clean:
        raise ValueError("no training sentences left after the max_length filter")
    def tokenized_batches():
        # Eager tokenization, one vectorized call per batch: inside a tf.data `map` graph the
        # SentencePiece resource of `SubwordTokenizer` cannot be built (it fails at trace time).
        for noisy, targets in noisy_batches(clean, generator, batch_size, seed, bucket_window):
            source = source_tokenizer.tokenize(noisy)
            if max_length is not None:
                source = source[:, :max_length]
            target = target_tokenizer.tokenize(targets, add_start=True, add_end=True)
            yield (
                source.to_tensor(default_value=0),  # (batch, src_len)
                target[:, :-1].to_tensor(default_value=0),  # (batch, tgt_len): [START] + y
                target[:, 1:].to_tensor(default_value=0),  # (batch, tgt_len): y + [END]
            )

    spec = tf.TensorSpec(shape=(None, None), dtype=tf.int32)
    dataset = tf.data.Dataset.from_generator(tokenized_batches, output_signature=(spec,) * 3)
    dataset = dataset.map(
        lambda encoder, decoder, labels: (
            {"encoder_tokens": encoder, "decoder_tokens": decoder},
            labels,
        )
    )
    return dataset.prefetch(tf.data.AUTOTUNE)
