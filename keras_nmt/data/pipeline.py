"""The tf.data pipeline: tokenized, length-bucketed, padded batches for ``model.fit``.

`make_dataset` yields::

    ({"encoder_tokens": int32 (batch, src_len), "decoder_tokens": int32 (batch, tgt_len)},
     targets int32 (batch, tgt_len))

with ``decoder_tokens = [START] + y`` and ``targets = y + [END]`` (teacher forcing), padded with
``PAD_ID = 0`` to the longest row of each batch. ``encoder_tokens`` are the source ids exactly as
``source_tokenizer.tokenize(sources)`` returns them (no START/END).

How it is fast: the whole corpus is tokenized once, in chunks of ``chunk_size`` strings (one
vectorized ``tokenize`` call per chunk, never one call per pair), into ragged tensors held in
memory (this is the "cache of tokenized data": tokenization never runs again, epoch after
epoch). Each epoch, a handful of vectorized ops on index vectors (a stateless permutation, one
sort, a split into batches) decides the whole epoch's batches, and each padded batch is then
built with two ragged ``gather`` + ``to_tensor`` calls. No tf.data op runs once per pair: a
per-element ``shuffle``/``unbatch``/``batch`` chain costs more than the batching itself.

Bucketing is "sort within a window" (as in fairseq/tensor2tensor token batching) rather than
``Dataset.bucket_by_sequence_length`` with fixed boundaries: the epoch's permutation is cut into
windows of ``bucket_window`` batches, each window is sorted by length (longer side first, then
the sum), cut into batches, and the batches of the whole epoch are shuffled. Batches hold pairs of
nearly equal lengths whatever the length distribution, so no boundaries have to be chosen, and
which pairs share a batch still changes every epoch.

Token batches (``batch_tokens=N``, fairseq's ``--max-tokens``): as fairseq's ``batch_by_size``,
the whole corpus, sorted by length, is cut once into batches of varying size, each closed before
its padded source + target tokens would pass ``N``: short pairs come in large batches, long ones
in small, so every step does about the same work. Each epoch shuffles the order of these fixed
batches, so an epoch always has the same number of batches (Keras' ``steps_per_epoch`` and exact
resume need that; re-cutting every epoch would change the count).

Determinism: with a ``seed``, two datasets built the same way yield the same batches in the same
order, epoch after epoch (each epoch is reshuffled, reproducibly: the epoch seeds come from
``tf.data.Dataset.random(seed, rerandomize_each_iteration=True)``, so, as for any seeded tf.data
op, they also depend on the global seed when ``tf.random.set_seed`` was called). ``seed=None``
reshuffles differently on every run.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Sequence

import numpy as np
import tensorflow as tf

from keras_nmt.plural import plural
from keras_nmt.special_ids import END_ID, PAD_ID

logger = logging.getLogger(__name__)

DEFAULT_CHUNK_SIZE = 8192
# Windows of this many batches are sorted by length before being cut into batches.
DEFAULT_BUCKET_WINDOW = 100


@dataclasses.dataclass
class TokenizedPairs:
    """Token ids of a whole corpus, computed once by `tokenize_pairs`.

    Attributes:
        source_tokens: ``tf.RaggedTensor`` int32 ``(num_pairs, None)``: the source ids as
            ``source_tokenizer.tokenize(sources)`` returns them (no START/END); these become
            ``encoder_tokens``.
        target_tokens: ``tf.RaggedTensor`` int32 ``(num_pairs, None)``: ``[START] + y + [END]``;
            ``decoder_tokens`` are its rows without the last id, ``targets`` without the first.
        num_read: pairs given to `tokenize_pairs`.
        filtered_too_long: pairs dropped because ``len(source) > max_length`` or
            ``len(y) + 1 > max_length`` (the decoder input or target would exceed it).
        filtered_empty_source: pairs dropped because the source tokenized to nothing (an
            all-padding encoder row would leave attention with nothing to attend to).
        max_length: the limit used, or ``None``.
    """

    source_tokens: tf.RaggedTensor
    target_tokens: tf.RaggedTensor
    num_read: int = 0
    filtered_too_long: int = 0
    filtered_empty_source: int = 0
    max_length: int | None = None

    def __len__(self) -> int:
        return int(self.source_tokens.nrows())

    @property
    def source_lengths(self) -> np.ndarray:
        """``(num_pairs,)`` int64: encoder row lengths."""
        return self.source_tokens.row_lengths().numpy()

    @property
    def target_lengths(self) -> np.ndarray:
        """``(num_pairs,)`` int64: decoder row lengths, ``len(y) + 1``."""
        return self.target_tokens.row_lengths().numpy() - 1

    def summary(self) -> str:
        """One readable line: pairs kept and filtered, token counts."""
        text = f"tokenized {plural(self.num_read, 'pair')}, kept {len(self):,}"
        if self.max_length is not None:
            text += f"; {self.filtered_too_long:,} longer than {self.max_length} tokens filtered"
        if self.filtered_empty_source:
            text += f"; {self.filtered_empty_source:,} with an empty source filtered"
        return text


def _tokenize_in_chunks(tokenizer, strings: list[str], chunk_size: int,
                        **options) -> tf.RaggedTensor:
    """One ``tokenize`` call per chunk of ``chunk_size`` strings; returns ``(n, None)`` int32."""
    parts = []
    for start in range(0, len(strings), chunk_size):
        ids = tokenizer.tokenize(tf.constant(strings[start : start + chunk_size]), **options)
        if not isinstance(ids, tf.RaggedTensor):
            raise TypeError(f"{type(tokenizer).__name__}.tokenize must return a tf.RaggedTensor")
        parts.append(tf.cast(ids, tf.int32))
    return tf.concat(parts, axis=0)  # one part: returned as it is


def tokenize_pairs(pairs: Sequence[tuple[str, str]], source_tokenizer, target_tokenizer, *,
                   max_length: int | None = None,
                   chunk_size: int = DEFAULT_CHUNK_SIZE) -> TokenizedPairs:
    """Tokenizes a whole corpus in big vectorized chunks and filters over-long pairs.

    Args:
        pairs: ``[(source, target), ...]`` (a list, or a `ParallelCorpus`).
        source_tokenizer: has ``tokenize(strings) -> tf.RaggedTensor`` int32.
        target_tokenizer: has ``tokenize(strings, add_start=True, add_end=True)``.
        max_length: keep a pair only if ``len(source_ids) <= max_length`` and
            ``len(y) + 1 <= max_length``, i.e. no ``encoder_tokens``, ``decoder_tokens``
            (``[START] + y``) or ``targets`` (``y + [END]``) row is longer than ``max_length``.
            ``None`` keeps all.
        chunk_size: strings per ``tokenize`` call.

    Returns:
        `TokenizedPairs` (source ids, ``[START] + y + [END]`` target ids, filter counts).
    """
    pairs = list(pairs)
    if not pairs:
        raise ValueError("no pairs to tokenize")
    sources = [source for source, _ in pairs]
    targets = [target for _, target in pairs]
    source_ids = _tokenize_in_chunks(source_tokenizer, sources, chunk_size)
    target_ids = _tokenize_in_chunks(target_tokenizer, targets, chunk_size, add_start=True,
                                     add_end=True)
    source_lengths = source_ids.row_lengths().numpy()
    decoder_lengths = target_ids.row_lengths().numpy() - 1
    keep = source_lengths > 0
    filtered_empty = int(np.sum(~keep))
    too_long = np.zeros_like(keep)
    if max_length is not None:
        too_long = (source_lengths > max_length) | (decoder_lengths > max_length)
        keep &= ~too_long
    result = TokenizedPairs(source_ids, target_ids, num_read=len(pairs),
                            filtered_too_long=int(np.sum(too_long & (source_lengths > 0))),
                            filtered_empty_source=filtered_empty, max_length=max_length)
    if not keep.all():
        indices = tf.constant(np.flatnonzero(keep), dtype=tf.int64)
        result.source_tokens = tf.gather(source_ids, indices)
        result.target_tokens = tf.gather(target_ids, indices)
        logger.info(result.summary())
    if len(result) == 0:
        raise ValueError(f"no pairs left after filtering: {result.summary()}")
    return result


def _length_ranks(tokenized: TokenizedPairs) -> np.ndarray:
    """``(n,)`` int32: each pair's position when sorted by (longer side, sum of both sides).

    Sorting by the longer side keeps both the source and the target tight in a batch; sorting
    by the source first leaves the targets padded (docs/decisions.md).
    """
    source, target = tokenized.source_lengths, tokenized.target_lengths
    order = np.lexsort((source + target, np.maximum(source, target)))
    ranks = np.empty(len(order), dtype=np.int32)
    ranks[order] = np.arange(len(order), dtype=np.int32)
    return ranks


def _token_batch_splits(source_lengths: np.ndarray, target_lengths: np.ndarray,
                        batch_tokens: int) -> np.ndarray:
    """Row splits cutting length-sorted pairs into batches of at most ``batch_tokens``.

    A batch of ``n`` pairs costs ``n * (longest source + longest target)`` padded tokens. The
    pairs are taken in order and a batch is closed when the next pair would take it over
    ``batch_tokens`` (fairseq's ``--max-tokens`` batching).

    Args:
        source_lengths: ``(n,)`` padded source lengths, in length order.
        target_lengths: ``(n,)`` padded decoder lengths, in length order.
        batch_tokens: the most padded source + target tokens of a batch (every pair fits alone).

    Returns:
        ``(num_batches + 1,)`` int64 row splits, from 0 to ``n``.
    """
    splits = [0]
    longest_source = longest_target = 0
    for index, (source, target) in enumerate(zip(source_lengths, target_lengths, strict=True)):
        longest_source, longest_target = max(longest_source, source), max(longest_target, target)
        size = index + 1 - splits[-1]
        if size > 1 and size * (longest_source + longest_target) > batch_tokens:
            splits.append(index)
            longest_source, longest_target = source, target
    splits.append(len(source_lengths))
    return np.asarray(splits, dtype=np.int64)


_plain = tf.autograph.experimental.do_not_convert


def _round_up(tensor: tf.Tensor, multiple: int) -> tf.Tensor:
    """Pads ``(batch, length)`` on the right with 0 so that ``length % multiple == 0``."""
    if multiple <= 1:
        return tensor
    length = tf.shape(tensor)[1]
    extra = (multiple - length % multiple) % multiple
    return tf.pad(tensor, [[0, 0], [0, extra]])


def make_dataset(pairs, source_tokenizer=None, target_tokenizer=None, batch_size: int = 64, *,
                 batch_tokens: int | None = None, shuffle: bool = True, seed: int | None = None,
                 bucket: bool = True, max_length: int | None = None,
                 drop_remainder: bool = False, repeat: bool = False,
                 bucket_window: int = DEFAULT_BUCKET_WINDOW, pad_to_multiple: int = 1,
                 epochs: range | None = None) -> tf.data.Dataset:
    """Builds the training/evaluation ``tf.data.Dataset`` of padded teacher-forcing batches.

    Args:
        pairs: ``[(source, target), ...]``, a `ParallelCorpus`, or a `TokenizedPairs` from
            `tokenize_pairs` (then the tokenizers are not needed and ``max_length`` must be
            applied when tokenizing).
        source_tokenizer: tokenizer of the source side (see CONTRIBUTING.md).
        target_tokenizer: tokenizer of the target side.
        batch_size: pairs per batch (ignored with ``batch_tokens``).
        batch_tokens: instead of ``batch_size`` pairs, token batches of at most this many
            padded source + target tokens (see the module); every pair must fit alone.
        shuffle: shuffle pairs (and, with ``bucket``, batches) every epoch.
        seed: shuffle seed; the same seed gives the same batches in the same order.
        bucket: sort within windows of ``bucket_window`` batches (see the module).
        max_length: drop pairs with a row longer than this many tokens, START/END included
            (see `tokenize_pairs`); the count is logged and kept in `TokenizedPairs`.
        drop_remainder: drop the last, smaller batch so the batch dimension is static.
        repeat: repeat forever (use ``steps_per_epoch`` in ``fit``).
        bucket_window: batches per sorting window; larger = less padding, less randomness.
        pad_to_multiple: round each batch's lengths up to a multiple of this (fewer distinct
            shapes, fewer retraces/XLA compilations); 1 = pad to the longest row only.
        epochs: yield these epochs' batches one after another in one pass, epoch ``e``
            shuffled with a seed made of ``(seed, e)`` only, so that a run resumed at epoch
            ``e`` sees the batches an uninterrupted run saw (see
            `keras_nmt.workshop.run.exact_backup`). ``None``: one epoch per pass, reshuffled on
            every pass.

    Returns:
        A dataset of ``({"encoder_tokens": (batch, src_len), "decoder_tokens": (batch,
        tgt_len)}, targets (batch, tgt_len))``, all int32, padded with 0.

    Example:
        With a char tokenizer where ``h -> 7``, ``i -> 8``, ``o -> 9``, ``l -> 10``, ``a -> 11``:

        >>> dataset = make_dataset([("hola", "hi")], char_tok, char_tok, 1)  # doctest: +SKIP
        >>> inputs, targets = next(iter(dataset))  # doctest: +SKIP
        >>> inputs["encoder_tokens"].numpy()  # doctest: +SKIP
        array([[ 7,  9, 10, 11]], dtype=int32)
        >>> inputs["decoder_tokens"].numpy(), targets.numpy()  # doctest: +SKIP
        (array([[2, 7, 8]], dtype=int32), array([[7, 8, 3]], dtype=int32))
    """
    if batch_size < 1:
        raise ValueError(f"batch_size must be >= 1, got {batch_size}")
    if batch_tokens is not None and drop_remainder:
        raise ValueError("drop_remainder needs fixed batches of batch_size, not batch_tokens")
    if isinstance(pairs, TokenizedPairs):
        if max_length is not None and max_length != pairs.max_length:
            raise ValueError("pass max_length to tokenize_pairs when giving TokenizedPairs")
        tokenized = pairs
    else:
        if source_tokenizer is None or target_tokenizer is None:
            raise ValueError("source_tokenizer and target_tokenizer are required for string pairs")
        tokenized = tokenize_pairs(pairs, source_tokenizer, target_tokenizer,
                                   max_length=max_length)
    num_pairs = len(tokenized)
    num_batches = num_pairs // batch_size if drop_remainder else -(-num_pairs // batch_size)
    num_kept = num_batches * batch_size if drop_remainder else num_pairs
    window = bucket_window * batch_size
    if batch_tokens is not None:
        # Padded lengths, as make_batch will build them.
        multiple = max(1, pad_to_multiple)
        source_cost = -(-tokenized.source_lengths // multiple) * multiple
        target_cost = -(-tokenized.target_lengths // multiple) * multiple
        longest = int(np.max(source_cost + target_cost))
        if batch_tokens < longest:
            raise ValueError(f"batch_tokens={batch_tokens} is below the longest pair ({longest} "
                             "source + target tokens): raise it or lower max_length")
        by_length = np.argsort(_length_ranks(tokenized))
        token_batches = tf.RaggedTensor.from_row_splits(
            tf.constant(by_length, tf.int64),
            _token_batch_splits(source_cost[by_length], target_cost[by_length], batch_tokens),
        )
        num_batches = int(token_batches.nrows())
    encoder_rows = tokenized.source_tokens
    target_rows = tokenized.target_tokens  # [START] + y + [END]
    ranks = tf.constant(_length_ranks(tokenized), dtype=tf.int64)
    static_batch = batch_size if drop_remainder else None

    def epoch_batches(epoch_seed):  # () int64 -> RaggedTensor (num_batches, None) int64
        if batch_tokens is not None:
            if not shuffle:
                return token_batches
            batch_order = tf.random.experimental.stateless_shuffle(
                tf.range(num_batches, dtype=tf.int64), seed=tf.stack([epoch_seed, 1]))
            return tf.gather(token_batches, batch_order)
        # The whole epoch's order is computed with a few vectorized ops, not element by element.
        order = tf.range(num_pairs, dtype=tf.int64)
        if shuffle:
            order = tf.random.experimental.stateless_shuffle(order, seed=tf.stack([epoch_seed, 0]))
        if bucket:
            # Sort by (window, length rank): each window of `window` pairs is length-sorted.
            window_of = tf.range(num_pairs, dtype=tf.int64) // window
            key = window_of * num_pairs + tf.gather(ranks, order)
            order = tf.gather(order, tf.argsort(key, stable=True))
        order = order[:num_kept]
        # Windows hold whole batches (window % batch_size == 0): no batch straddles two.
        splits = tf.concat([tf.range(0, num_kept, batch_size, dtype=tf.int64),
                            [tf.constant(num_kept, tf.int64)]], axis=0)
        batches = tf.RaggedTensor.from_row_splits(order, splits, validate=False)
        if shuffle and bucket:
            # Sorted windows give batches in length order: mix them across the epoch.
            batch_order = tf.random.experimental.stateless_shuffle(
                tf.range(batches.nrows(), dtype=tf.int64), seed=tf.stack([epoch_seed, 1]))
            batches = tf.gather(batches, batch_order)
        return batches

    if epochs is not None:
        seeds = [np.random.default_rng([seed or 0, epoch]).integers(2**62) for epoch in epochs]
        epoch_seeds = tf.data.Dataset.from_tensor_slices(tf.constant(seeds, tf.int64, [len(seeds)]))
    elif shuffle:
        # One seed per epoch: reproducible for a given `seed`, different from epoch to epoch.
        epoch_seeds = tf.data.Dataset.random(seed=seed, rerandomize_each_iteration=True).take(1)
    else:
        epoch_seeds = tf.data.Dataset.from_tensors(tf.constant(0, tf.int64))
    # Plain graph code: AutoGraph's conversion would only cost time at every `make_dataset`.
    batches = epoch_seeds.map(_plain(epoch_batches)).unbatch()  # (batch,) int64 per element

    def make_batch(batch_indices):  # (batch,) int64
        encoder = tf.gather(encoder_rows, batch_indices).to_tensor(default_value=PAD_ID)
        full = tf.gather(target_rows, batch_indices).to_tensor(default_value=PAD_ID)
        # full: (batch, tgt_len + 1) rows [START, y..., END, PAD...]. Rows shorter than the
        # longest keep their END inside full[:, :-1]; tokenizers never emit END for text, so
        # END there is exactly the end marker, replaced by padding.
        decoder = full[:, :-1]
        decoder = tf.where(decoder == END_ID, tf.constant(PAD_ID, decoder.dtype), decoder)
        # (batch, src_len), (batch, tgt_len), (batch, tgt_len)
        padded = [_round_up(x, pad_to_multiple) for x in (encoder, decoder, full[:, 1:])]
        for tensor in padded:
            tensor.set_shape([static_batch, None])
        encoder, decoder, target = padded
        return {"encoder_tokens": encoder, "decoder_tokens": decoder}, target

    dataset = batches.map(
        _plain(make_batch), num_parallel_calls=tf.data.AUTOTUNE, deterministic=True)
    # The batch count is known: Keras then shows it and never "runs out of data".
    num_epochs = 1 if epochs is None else len(epochs)
    dataset = dataset.apply(tf.data.experimental.assert_cardinality(num_epochs * num_batches))
    if not shuffle:  # the batches never change: keep them after the first pass
        dataset = dataset.cache()
    if repeat:
        dataset = dataset.repeat()
    return dataset.prefetch(tf.data.AUTOTUNE)
