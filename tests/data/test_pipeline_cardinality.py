"""The bucketed dataset knows its length: Keras shows it and never "runs out of data"."""

import warnings

import keras
import tensorflow as tf

from keras_nmt.data.pipeline import make_dataset
from keras_nmt.text import make_tokenizer

PAIRS = [(f"source {i} " + "x" * (i % 7), f"target {i}") for i in range(50)]


def tokenizers():
    return (make_tokenizer("char").build([s for s, _ in PAIRS]),
            make_tokenizer("char").build([t for _, t in PAIRS]))


def test_cardinality_is_the_number_of_batches():
    source, target = tokenizers()
    for shuffle in (True, False):
        dataset = make_dataset(PAIRS, source, target, 8, shuffle=shuffle, seed=1)
        assert int(dataset.cardinality()) == 7 == len(list(dataset))
    epochs = make_dataset(PAIRS, source, target, 8, seed=1, epochs=range(2, 5))
    assert int(epochs.cardinality()) == 21 == len(list(epochs))


def test_epochs_are_reproducible_whatever_the_first_one():
    source, target = tokenizers()
    all_epochs = list(make_dataset(PAIRS, source, target, 8, seed=1, epochs=range(0, 3)))
    last_two = list(make_dataset(PAIRS, source, target, 8, seed=1, epochs=range(1, 3)))
    for a, b in zip(all_epochs[7:], last_two, strict=True):
        assert tf.reduce_all(a[0]["encoder_tokens"] == b[0]["encoder_tokens"])
    first = [tuple(batch[1][:, 0].numpy()) for batch in all_epochs[:7]]
    second = [tuple(batch[1][:, 0].numpy()) for batch in all_epochs[7:14]]
    assert first != second  # each epoch is shuffled anew


def test_fit_does_not_warn_that_the_input_ran_out():
    source, target = tokenizers()
    dataset = make_dataset(PAIRS, source, target, 8, seed=1)
    encoder = keras.Input((None,), dtype="int32", name="encoder_tokens")
    decoder = keras.Input((None,), dtype="int32", name="decoder_tokens")
    embedded = keras.layers.Embedding(target.vocab_size, 4)(decoder)
    model = keras.Model({"encoder_tokens": encoder, "decoder_tokens": decoder},
                        keras.layers.Dense(target.vocab_size)(embedded))
    model.compile("sgd", keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model.fit(dataset, epochs=2, verbose=0)
    assert not [w for w in caught if "ran out of data" in str(w.message)]
