"""The tf.data pipeline: shapes, padding, teacher-forcing shift, bucketing, determinism, filters."""

import numpy as np
import pytest
import tensorflow as tf

from keras_nmt.data.pipeline import TokenizedPairs, make_dataset, tokenize_pairs
from keras_nmt.special_ids import END_ID, PAD_ID, START_ID
from keras_nmt.workshop.benchmarks.padding import measure_padding
from keras_nmt.workshop.corpora.parallel_corpus import CorpusStats, ParallelCorpus


def varied_pairs(count=2000, seed=0):
    """Random lower-case strings: sources of 1-60 characters, targets of the source length
    plus or minus up to 3 (lengths correlate, as in real translations). Sources are unique."""
    rng = np.random.default_rng(seed)
    letters = np.array(list("abcdefghijklmnopqrstuvwxyz"))
    pairs = {}
    while len(pairs) < count:
        length = int(rng.integers(1, 61))
        target_length = max(1, length + int(rng.integers(-3, 4)))
        source = "".join(rng.choice(letters, length))
        pairs.setdefault(source, "".join(rng.choice(letters, target_length)))
    return list(pairs.items())


def batches_as_numpy(dataset):
    return [
        (x["encoder_tokens"].numpy(), x["decoder_tokens"].numpy(), y.numpy()) for x, y in dataset
    ]


def test_hand_built_batch(tiny_tokenizer):
    pairs = [("ab", "c"), ("abc", "ba"), ("b", "cab")]
    dataset = make_dataset(pairs, tiny_tokenizer, tiny_tokenizer, 2, shuffle=False, bucket=False)
    (first, second) = batches_as_numpy(dataset)
    a, b, c = 4, 5, 6
    np.testing.assert_array_equal(first[0], [[a, b, 0], [a, b, c]])  # encoder_tokens
    np.testing.assert_array_equal(first[1], [[START_ID, c, 0], [START_ID, b, a]])  # [START] + y
    np.testing.assert_array_equal(first[2], [[c, END_ID, 0], [b, a, END_ID]])  # y + [END]
    np.testing.assert_array_equal(second[0], [[b]])
    np.testing.assert_array_equal(second[1], [[START_ID, c, a, b]])
    np.testing.assert_array_equal(second[2], [[c, a, b, END_ID]])
    assert all(array.dtype == np.int32 for batch in (first, second) for array in batch)


def test_element_spec_and_static_batch(tiny_tokenizer):
    pairs = varied_pairs(100)
    dataset = make_dataset(pairs, tiny_tokenizer, tiny_tokenizer, 16, seed=0)
    inputs_spec, targets_spec = dataset.element_spec
    assert set(inputs_spec) == {"encoder_tokens", "decoder_tokens"}
    assert inputs_spec["encoder_tokens"] == tf.TensorSpec([None, None], tf.int32)
    assert targets_spec == tf.TensorSpec([None, None], tf.int32)
    assert sum(batch[0].shape[0] for batch in batches_as_numpy(dataset)) == 100

    fixed = make_dataset(pairs, tiny_tokenizer, tiny_tokenizer, 16, seed=0, drop_remainder=True)
    assert fixed.element_spec[1].shape.as_list() == [16, None]
    sizes = [batch[0].shape[0] for batch in batches_as_numpy(fixed)]
    assert sizes == [16] * 6  # 100 // 16; the last 4 pairs are dropped


def test_shift_and_padding_on_every_row(tiny_tokenizer):
    pairs = varied_pairs(300, seed=1)
    lookup = {source: target for source, target in pairs}
    dataset = make_dataset(pairs, tiny_tokenizer, tiny_tokenizer, 32, seed=3)
    rows = 0
    for encoder, decoder, target in batches_as_numpy(dataset):
        assert decoder.shape == target.shape and encoder.shape[0] == target.shape[0]
        for enc_row, dec_row, tgt_row in zip(encoder, decoder, target, strict=True):
            source = "".join(chr(i + 93) for i in enc_row[enc_row != PAD_ID])
            y = [ord(ch) - 93 for ch in lookup[source]]
            pad = [PAD_ID] * (len(dec_row) - len(y) - 1)
            assert dec_row.tolist() == [START_ID, *y, *pad]
            assert tgt_row.tolist() == [*y, END_ID, *pad]
            assert enc_row.tolist() == [ord(ch) - 93 for ch in source] + [PAD_ID] * (
                len(enc_row) - len(source)
            )
            rows += 1
        # Each batch is padded to its own longest row: no all-padding column.
        assert (encoder[:, -1] != PAD_ID).any() and (target[:, -1] != PAD_ID).any()
    assert rows == 300


def test_tokenizes_in_big_chunks(tiny_tokenizer):
    pairs = varied_pairs(1000)
    tokenize_pairs(pairs, tiny_tokenizer, tiny_tokenizer, chunk_size=300)
    assert tiny_tokenizer.calls == 8  # ceil(1000 / 300) per side, not one call per pair


def test_bucketing_reduces_padding(tiny_tokenizer):
    tokenized = tokenize_pairs(varied_pairs(3000), tiny_tokenizer, tiny_tokenizer)
    plain = measure_padding(make_dataset(tokenized, batch_size=32, seed=0, bucket=False))
    bucketed = measure_padding(make_dataset(tokenized, batch_size=32, seed=0, bucket=True))
    assert plain.sequences == bucketed.sequences == 3000
    assert plain.source_tokens == bucketed.source_tokens == tokenized.source_lengths.sum()
    assert plain.target_tokens == bucketed.target_tokens == tokenized.target_lengths.sum()
    # Lengths uniform in 1-60: batches of 32 random pairs are ~48% padding; one sorted window
    # (100 batches > 3000 pairs) leaves ~3%; windows of 4 batches are in between (~15%).
    assert plain.padding_fraction > 0.40
    assert bucketed.padding_fraction < 0.08
    assert bucketed.source_padding_fraction < 0.08 and bucketed.target_padding_fraction < 0.08
    small = measure_padding(make_dataset(tokenized, batch_size=32, seed=0, bucket_window=4))
    assert bucketed.padding_fraction < small.padding_fraction < 0.25


def test_bucketed_epoch_has_every_pair_once(tiny_tokenizer):
    pairs = varied_pairs(500, seed=2)
    dataset = make_dataset(pairs, tiny_tokenizer, tiny_tokenizer, 24, seed=0)
    seen = []
    for encoder, _, _ in batches_as_numpy(dataset):
        seen += ["".join(chr(i + 93) for i in row[row != 0]) for row in encoder]
    assert sorted(seen) == sorted(source for source, _ in pairs)


def test_determinism_with_seed(tiny_tokenizer):
    pairs = varied_pairs(400)

    def epochs(seed, count=2):
        dataset = make_dataset(pairs, tiny_tokenizer, tiny_tokenizer, 16, seed=seed)
        return [batches_as_numpy(dataset) for _ in range(count)]

    def same(a, b):
        return len(a) == len(b) and all(
            all(np.array_equal(x, y) for x, y in zip(p, q, strict=True))
            for p, q in zip(a, b, strict=True)
        )

    run1, run2, other = epochs(7), epochs(7), epochs(8)
    assert same(run1[0], run2[0]) and same(run1[1], run2[1])  # same seed, epoch after epoch
    assert not same(run1[0], run1[1])  # each epoch is reshuffled
    assert not same(run1[0], other[0])  # another seed, other batches


def test_unshuffled_is_in_order_and_cached(tiny_tokenizer):
    pairs = [("abc", "a"), ("a", "b"), ("ab", "c")]
    dataset = make_dataset(pairs, tiny_tokenizer, tiny_tokenizer, 1, shuffle=False, bucket=False)
    first = [batch[0].tolist() for batch in batches_as_numpy(dataset)]
    assert first == [[[4, 5, 6]], [[4]], [[4, 5]]]
    assert [batch[0].tolist() for batch in batches_as_numpy(dataset)] == first
    # Unshuffled with bucketing: sorted by length within the window.
    sorted_ds = make_dataset(pairs, tiny_tokenizer, tiny_tokenizer, 1, shuffle=False)
    assert [batch[0].tolist() for batch in batches_as_numpy(sorted_ds)] == [
        [[4]],
        [[4, 5]],
        [[4, 5, 6]],
    ]


def test_max_length_filters_and_counts(tiny_tokenizer):
    pairs = [("abcd", "ab"), ("abcde", "a"), ("a", "abcd"), ("ab", "abc"), ("", "a")]
    tokenized = tokenize_pairs(pairs, tiny_tokenizer, tiny_tokenizer, max_length=4)
    # Kept: source <= 4 tokens and len(y) + 1 <= 4. Dropped: "abcde" (5 source tokens),
    # y = "abcd" ([START] + y has 5), and the empty source.
    assert len(tokenized) == 2 and tokenized.num_read == 5
    assert (tokenized.filtered_too_long, tokenized.filtered_empty_source) == (2, 1)
    assert tokenized.summary() == (
        "tokenized 5 pairs, kept 2; 2 longer than 4 tokens filtered; "
        "1 with an empty source filtered"
    )
    dataset = make_dataset(pairs, tiny_tokenizer, tiny_tokenizer, 8, max_length=4, shuffle=False)
    ((encoder, decoder, target),) = batches_as_numpy(dataset)
    assert encoder.shape == (2, 4) and decoder.shape == target.shape == (2, 4)
    with pytest.raises(ValueError, match="no pairs left"):
        tokenize_pairs([("abcdef", "a")], tiny_tokenizer, tiny_tokenizer, max_length=3)


def test_pad_to_multiple_repeat_and_corpus_input(tiny_tokenizer):
    corpus = ParallelCorpus(varied_pairs(50), CorpusStats("mem", read=50, kept=50))
    dataset = make_dataset(
        corpus, tiny_tokenizer, tiny_tokenizer, 8, seed=0, pad_to_multiple=8, repeat=True
    )
    batches = batches_as_numpy(dataset.take(20))  # more than one epoch (7 batches)
    assert len(batches) == 20
    assert all(array.shape[1] % 8 == 0 for batch in batches for array in batch)
    stats = measure_padding(dataset, max_batches=7)
    assert (stats.batches, stats.sequences) == (7, 50)
    # Repeated epochs are reshuffled: epoch 2 holds the same pairs in other batches.
    first, second = batches_as_numpy(dataset.take(14))[:7], batches_as_numpy(dataset.take(14))[7:]
    assert sum(batch[0].shape[0] for batch in second) == 50
    assert any(
        a[0].shape != b[0].shape or (a[0] != b[0]).any() for a, b in zip(first, second, strict=True)
    )


def test_unseeded_shuffle_still_yields_every_pair(tiny_tokenizer):
    pairs = varied_pairs(100, seed=4)
    dataset = make_dataset(pairs, tiny_tokenizer, tiny_tokenizer, 10, seed=None)
    assert sorted(
        "".join(chr(i + 93) for i in row[row != 0])
        for batch in batches_as_numpy(dataset)
        for row in batch[0]
    ) == sorted(source for source, _ in pairs)


def test_tokenized_pairs_lengths(tiny_tokenizer):
    tokenized = tokenize_pairs([("abc", "ab"), ("a", "abcd")], tiny_tokenizer, tiny_tokenizer)
    assert isinstance(tokenized, TokenizedPairs)
    assert tokenized.source_lengths.tolist() == [3, 1]
    assert tokenized.target_lengths.tolist() == [3, 5]  # len(y) + 1
    assert tokenized.target_tokens[0].numpy().tolist() == [START_ID, 4, 5, END_ID]


def test_with_real_char_tokenizer():
    text = pytest.importorskip("keras_nmt.text")
    from keras_nmt.workshop.corpora.builtin import builtin_pairs

    pairs = builtin_pairs("dates", split="valid", size=200, seed=0)
    source = text.CharTokenizer().build([s for s, _ in pairs])
    target = text.CharTokenizer().build([t for _, t in pairs])
    dataset = make_dataset(pairs, source, target, 32, seed=0)
    expected = {s: t for s, t in pairs}
    count = 0
    for inputs, targets in dataset:
        sources = [s.decode() for s in source.detokenize(inputs["encoder_tokens"]).numpy()]
        decoded = [t.decode() for t in target.detokenize(targets).numpy()]
        assert decoded == [expected[s] for s in sources]
        # Dates are 10 characters: targets are y + [END], 11 ids, no padding.
        assert targets.shape[1] == 11 and (inputs["decoder_tokens"][:, 0] == START_ID).numpy().all()
        count += len(sources)
    assert count == 200


def token_batches(pairs, tokenizer, batch_tokens, seed=0, **options):
    dataset = make_dataset(pairs, tokenizer, tokenizer, batch_tokens=batch_tokens, seed=seed,
                           **options)
    return batches_as_numpy(dataset), dataset


@pytest.mark.parametrize("pad_to_multiple", [1, 8])
def test_token_batches_stay_under_the_limit_and_hold_every_pair_once(
    tiny_tokenizer, pad_to_multiple
):
    pairs = varied_pairs(1500, seed=3)
    batches, dataset = token_batches(pairs, tiny_tokenizer, 600, pad_to_multiple=pad_to_multiple)
    costs = [encoder.size + decoder.size for encoder, decoder, _ in batches]
    assert max(costs) <= 600
    assert np.mean(costs) > 0.8 * 600  # batches are filled, not merely under the limit
    sizes = [len(encoder) for encoder, _, _ in batches]
    assert min(sizes) < 10 < 30 < max(sizes)  # long pairs in small batches, short in large
    for _ in range(2):  # every epoch (each reshuffled) holds every pair exactly once
        seen = []
        for encoder, _, _ in batches_as_numpy(dataset):
            seen += ["".join(chr(i + 93) for i in row[row != 0]) for row in encoder]
        assert sorted(seen) == sorted(source for source, _ in pairs)


def test_token_batches_are_deterministic_with_seed(tiny_tokenizer):
    pairs = varied_pairs(600, seed=4)
    first, dataset = token_batches(pairs, tiny_tokenizer, 500, seed=5)
    again, _ = token_batches(pairs, tiny_tokenizer, 500, seed=5)
    other, _ = token_batches(pairs, tiny_tokenizer, 500, seed=6)
    flat = [[array.tolist() for array in batch] for batch in first]
    assert flat == [[array.tolist() for array in batch] for batch in again]
    assert flat != [[array.tolist() for array in batch] for batch in other]
    assert flat != [[array.tolist() for array in batch] for batch in batches_as_numpy(dataset)]


def test_token_batches_reject_a_pair_longer_than_the_limit(tiny_tokenizer):
    with pytest.raises(ValueError, match="below the longest pair"):
        make_dataset(varied_pairs(50), tiny_tokenizer, tiny_tokenizer, batch_tokens=40)
    with pytest.raises(ValueError, match="drop_remainder"):
        make_dataset(varied_pairs(50), tiny_tokenizer, tiny_tokenizer, batch_tokens=400,
                     drop_remainder=True)
