"""Randomness belongs to the sentence: a sample depends on the seed and the sentence's index in
the input, never on the batches, the parallel calls or the other sentences it is decoded with."""

from tests.export.helpers import SOURCES

SAMPLE = {"strategy": "sample", "seed": 0, "temperature": 1.5}
# Sentences of many lengths, so that length-sorted batches mix the input order.
TEXTS = [f"{source} {'x' * (i % 5)}".strip() for i, source in enumerate(SOURCES * 3)]


def texts(results):
    return [r.text for r in results]


def test_samples_are_the_same_in_any_batches_and_parallel_calls(lstm_export):
    translator, _ = lstm_export
    expected = texts(translator.translate_batch(TEXTS, batch_size=len(TEXTS), parallel=1,
                                                **SAMPLE))
    for settings in ({"batch_size": 1}, {"batch_size": 2, "parallel": 3},
                     {"batch_size": 5, "parallel": 1}, {"batch_size": len(TEXTS), "calls": 3}):
        assert texts(translator.translate_batch(TEXTS, **settings, **SAMPLE)) == expected
    # A sentence given alone, with its index, draws what it draws among the others.
    for i in (0, 5, 11):
        [alone] = translator.translate_batch([TEXTS[i]], indices=[i], **SAMPLE)
        assert alone.text == expected[i]
    assert texts(translator.translate_batch(TEXTS, **{**SAMPLE, "seed": 1})) != expected


def test_eight_copies_of_a_sentence_are_eight_draws(lstm_export):
    # Batches of 2 once restarted the seed: 4 samples, each twice.
    translator, _ = lstm_export
    copies = [SOURCES[0]] * 8
    in_pairs = texts(translator.translate_batch(copies, batch_size=2, **SAMPLE))
    assert in_pairs == texts(translator.translate_batch(copies, batch_size=8, **SAMPLE))
    assert len(set(in_pairs)) == 8
