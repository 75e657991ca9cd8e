"""Training batches with fresh noise every pass over the clean sentences.

Why a generator instead of `keras_nmt.data.pipeline.make_dataset`: `make_dataset` tokenizes a fixed
list of pairs once, so the model would see the same misspellings every epoch and could memorise
them. Here a Python generator (`tf.data.Dataset.from_generator`) walks over the clean sentences
forever; pass ``p`` shuffles them and draws the noise with ``random.Random(f"{seed}:{p}")``, so
every pass has new misspellings, and the whole stream depends only on ``seed`` (the same seed gives
the same batches in the same order). The generator tokenizes each batch of strings with one
vectorized, eager ``tokenize`` call per side (not in a tf.data ``map``: the SentencePiece resource
of the subword tokenizer cannot be built inside that graph) and yields exactly the batches of
`make_dataset`::

    ({"encoder_tokens": int32 (batch, src_len), "decoder_tokens": int32 (batch, tgt_len)},
     targets int32 (batch, tgt_len))

with ``decoder_tokens = [START] + y``, ``targets = y + [END]`` and padding 0. Like
`make_dataset`, sentences of similar length share a batch (each window of ``bucket_window``
batches is sorted by clean length, then the batches of the pass are shuffled).

The stream is numbered over all passes (batch ``b`` of pass ``p`` is batch
``p * steps_per_epoch(len(clean), batch_size) + b``) and can start at any batch: pass ``p`` is
made from ``p`` and the seed alone, and the batches of a pass before the start are noised but not
tokenized (the noise of a pass is drawn in order), so a run resumed from its backup trains on the
batches an uninterrupted run would have seen (`NoisyStream`, the spelling task's
`keras_nmt.workshop.run.task.TrainingStream`).
"""

import math
import random

import tensorflow as tf

from keras_nmt.plural import plural
from keras_nmt.workshop.run.task import TrainingStream
from keras_nmt.workshop.spelling.noise import NoiseGenerator

DEFAULT_BUCKET_WINDOW = 100


def steps_per_epoch(num_sentences, batch_size):
    """Batches in one pass over ``num_sentences`` (the last one may be smaller)."""
    return math.ceil(num_sentences / batch_size)


def noisy_batches(clean, generator, batch_size, seed=0, bucket_window=DEFAULT_BUCKET_WINDOW,
                  start=0):
    """Yields ``(noisy, clean)`` lists of ``batch_size`` strings forever, pass after pass.

    Args:
        clean: the clean training sentences.
        generator: a `NoiseGenerator`; its own ``rng`` is not used (each pass has its own).
        batch_size: sentences per batch.
        seed: pass ``p`` uses ``random.Random(f"{seed}:{p}")`` for order and noise.
        bucket_window: batches per window sorted by length (see the module docstring).
        start: the first batch yielded, numbered over all passes (the stream from 0, without
            its first ``start`` batches).
    """
    clean = list(clean)
    window = bucket_window * batch_size
    passes, skip = divmod(start, steps_per_epoch(len(clean), batch_size))
    while True:
        rng = random.Random(f"{seed}:{passes}")
        order = list(range(len(clean)))
        rng.shuffle(order)
        batches = []
        for first in range(0, len(order), window):
            chunk = sorted(order[first : first + window], key=lambda i: len(clean[i]))
            batches += [chunk[b : b + batch_size] for b in range(0, len(chunk), batch_size)]
        rng.shuffle(batches)
        for index, batch in enumerate(batches):
            targets = [clean[i] for i in batch]
            noisy = [generator.corrupt(text, rng) for text in targets]  # advances rng: always
            if index >= skip:
                yield noisy, targets
        passes, skip = passes + 1, 0


class NoisyStream(TrainingStream):
    """The training batches of fresh ``(noisy -> clean)`` pairs, pass after pass.

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

    Example:
        >>> stream = NoisyStream(sentences, NoiseGenerator(), char, char)  # doctest: +SKIP
        >>> first_pass = stream.batches(0, stream.batches_per_pass)  # doctest: +SKIP
    """

    def __init__(self, clean, generator: NoiseGenerator, source_tokenizer, target_tokenizer,
                 batch_size=64, *, seed=0, max_length=None, bucket_window=DEFAULT_BUCKET_WINDOW):
        clean = list(clean)
        target_lengths = target_tokenizer.tokenize(clean, add_end=True).row_lengths().numpy()
        kept = range(len(clean))
        if max_length is not None:
            source_lengths = source_tokenizer.tokenize(clean).row_lengths().numpy()
            kept = [i for i in kept
                    if 0 < source_lengths[i] <= max_length and target_lengths[i] <= max_length]
        if not kept:
            raise ValueError("no training sentences left after the max_length filter")
        self.clean = [clean[i] for i in kept]
        self.generator, self.source_tokenizer, self.target_tokenizer = (
            generator, source_tokenizer, target_tokenizer)
        self.batch_size, self.seed, self.max_length, self.bucket_window = (
            batch_size, seed, max_length, bucket_window)
        self.batches_per_pass = steps_per_epoch(len(self.clean), batch_size)
        self.target_tokens_per_pass = int(sum(target_lengths[i] for i in kept))
        self.summary = (f"{len(self.clean)} clean sentences ({len(clean) - len(self.clean)} "
                        f"longer than max_length dropped), fresh noise in each of the passes "
                        f"of {plural(self.batches_per_pass, 'batch')}")

    def batches(self, start, stop=None):
        """Batches ``start`` to ``stop - 1`` (all from ``start`` on, endless, when ``stop`` is
        None) in the format of `keras_nmt.data.pipeline.make_dataset`::

            ({"encoder_tokens": int32 (batch, src_len), "decoder_tokens": int32 (batch, tgt_len)},
             targets int32 (batch, tgt_len))
        """
        def tokenized_batches():
            # Eager tokenization, one vectorized call per batch: inside a tf.data `map` graph the
            # SentencePiece resource of `SubwordTokenizer` cannot be built (it fails at trace time).
            for noisy, targets in noisy_batches(self.clean, self.generator, self.batch_size,
                                                self.seed, self.bucket_window, start):
                source = self.source_tokenizer.tokenize(noisy)
                if self.max_length is not None:
                    source = source[:, : self.max_length]
                target = self.target_tokenizer.tokenize(targets, add_start=True, add_end=True)
                yield (
                    source.to_tensor(default_value=0),  # (batch, src_len)
                    target[:, :-1].to_tensor(default_value=0),  # (batch, tgt_len): [START] + y
                    target[:, 1:].to_tensor(default_value=0),  # (batch, tgt_len): y + [END]
                )

        spec = tf.TensorSpec(shape=(None, None), dtype=tf.int32)
        dataset = tf.data.Dataset.from_generator(tokenized_batches, output_signature=(spec,) * 3)
        if stop is not None:
            dataset = dataset.take(stop - start)
        dataset = dataset.map(
            lambda encoder, decoder, labels: (
                {"encoder_tokens": encoder, "decoder_tokens": decoder},
                labels,
            )
        )
        return dataset.prefetch(tf.data.AUTOTUNE)
