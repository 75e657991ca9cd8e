"""Sentences, splits, and the endless training dataset with fresh noise on every pass."""

import itertools

import numpy as np
import pytest

from keras_nmt.special_ids import END_ID, START_ID
from keras_nmt.text import make_tokenizer
from keras_nmt.workshop.spelling.noise import NoiseGenerator
from keras_nmt.workshop.spelling.noisy_dataset import NoisyStream, noisy_batches, steps_per_epoch
from keras_nmt.workshop.spelling.sentences import read_sentences, split_sentences
from keras_nmt.workshop.spelling.spelling_data import SpellingData

CLEAN = [f"sentence number {i} is here" if i % 2 else f"word {i}" for i in range(40)]


def test_read_sentences_takes_a_column_and_drops_duplicates(tmp_path):
    path = tmp_path / "text.tsv"
    path.write_text("Go.\tVe.\nGo.\tVete.\n  Hi  there.\tHola.\nno tab here\n\n")
    assert read_sentences(path, column=0) == ["Go.", "Hi there.", "no tab here"]
    assert read_sentences(path, column=1) == ["Ve.", "Vete.", "Hola."]
    assert read_sentences(path, column=0, max_sentences=2) == ["Go.", "Hi there."]
    assert read_sentences(path, column=0, max_chars=3) == ["Go."]


def test_split_is_seeded_and_disjoint():
    sentences = [f"s{i}" for i in range(100)]
    train, valid, test = split_sentences(sentences, seed=1)
    assert (len(train), len(valid), len(test)) == (90, 5, 5)
    assert sorted(train + valid + test) == sorted(sentences)
    assert (train, valid, test) == split_sentences(sentences, seed=1)
    assert valid != split_sentences(sentences, seed=2)[1]
    with pytest.raises(ValueError):
        split_sentences(sentences, valid_size=50, test_size=50)


def test_spelling_data_fixes_valid_and_test_noise():
    generator = NoiseGenerator(word_rate=0.5)
    data = SpellingData.from_sentences(CLEAN, generator, seed=3, valid_size=4, test_size=6)
    again = SpellingData.from_sentences(CLEAN, generator, seed=3, valid_size=4, test_size=6)
    assert (len(data.train), len(data.valid_pairs), len(data.test_pairs)) == (30, 4, 6)
    assert data.test_pairs == again.test_pairs and data.valid_pairs == again.valid_pairs
    assert [clean for _, clean in data.vocabulary_pairs()] == data.train
    assert "sentence" in data.clean_vocabulary()


def test_every_pass_holds_every_sentence_once_with_fresh_noise():
    generator = NoiseGenerator(word_rate=1.0)
    steps = steps_per_epoch(len(CLEAN), 8)
    assert steps == 5
    stream = noisy_batches(CLEAN, generator, batch_size=8, seed=0, bucket_window=2)
    passes = [list(itertools.islice(stream, steps)) for _ in range(2)]
    noise = []
    for batches in passes:
        pairs = [pair for noisy, clean in batches for pair in zip(noisy, clean, strict=True)]
        assert sorted(clean for _, clean in pairs) == sorted(CLEAN)
        noise.append(dict((clean, noisy) for noisy, clean in pairs))
    # The same sentence is misspelled differently in pass 0 and pass 1.
    assert sum(noise[0][c] != noise[1][c] for c in CLEAN) > 30
    again = noisy_batches(CLEAN, generator, batch_size=8, seed=0, bucket_window=2)
    assert list(itertools.islice(again, 2 * steps)) == passes[0] + passes[1]
    # Started at any batch, the stream goes on as the whole one (a resumed run's batches).
    for start in (3, 5, 7):
        later = noisy_batches(CLEAN, generator, batch_size=8, seed=0, bucket_window=2, start=start)
        assert list(itertools.islice(later, 2 * steps - start)) == (passes[0] + passes[1])[start:]


def test_dataset_batches_have_the_make_dataset_format():
    generator = NoiseGenerator(word_rate=0.5)
    tokenizer = make_tokenizer("char").build(CLEAN + ["xqzjkvbfgtyuioplmnhwecdrsa"])
    stream = NoisyStream(CLEAN, generator, tokenizer, tokenizer, 8, seed=0, max_length=20)
    # Sentences whose target would need more than 20 tokens are dropped up front.
    kept = [c for c in CLEAN if len(c) + 1 <= 20]
    assert stream.batches_per_pass == steps_per_epoch(len(kept), 8) == 3
    batches = list(stream.batches(0, stream.batches_per_pass))
    targets_seen = 0
    for inputs, targets in batches:
        encoder = inputs["encoder_tokens"].numpy()
        decoder = inputs["decoder_tokens"].numpy()
        targets = targets.numpy()
        assert encoder.dtype == decoder.dtype == targets.dtype == np.int32
        assert decoder.shape == targets.shape and encoder.shape[1] <= 20
        assert (decoder[:, 0] == START_ID).all()
        lengths = (targets != 0).sum(axis=1)
        for row, length in zip(range(len(targets)), lengths, strict=True):
            assert targets[row, length - 1] == END_ID
            np.testing.assert_array_equal(decoder[row, 1:length], targets[row, : length - 1])
        targets_seen += len(targets)
    assert targets_seen == len(kept) == 20
    # The tokens/s numerator: the non-padding targets of a pass, each clean sentence plus END.
    assert stream.target_tokens_per_pass == sum(len(c) + 1 for c in kept) == sum(
        int(np.count_nonzero(targets)) for _, targets in batches)
    # Any range of the stream is the same batches as the whole stream's.
    whole = [(inputs["encoder_tokens"].numpy(), targets.numpy())
             for inputs, targets in stream.batches(0, 7)]
    part = [(inputs["encoder_tokens"].numpy(), targets.numpy())
            for inputs, targets in stream.batches(4, 7)]
    assert len(whole) == 7 and len(part) == 3
    for (noisy, clean), (expected_noisy, expected_clean) in zip(part, whole[4:], strict=True):
        np.testing.assert_array_equal(noisy, expected_noisy)
        np.testing.assert_array_equal(clean, expected_clean)


def test_subword_tokenizers_work_in_the_generator():
    clean = [f"the cat number {i} sat on the mat" for i in range(300)]
    tokenizer = make_tokenizer("subword", vocab_size=100).build(clean)
    stream = NoisyStream(clean, NoiseGenerator(), tokenizer, tokenizer, 16, max_length=50)
    inputs, targets = next(iter(stream.batches(0)))
    assert inputs["encoder_tokens"].dtype.name == targets.dtype.name == "int32"
    assert targets.shape[0] == 16 and (inputs["decoder_tokens"].numpy()[:, 0] == START_ID).all()
