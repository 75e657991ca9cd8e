"""The task: a training stream gives any range of a run's batches, the same as the whole
stream's; `--steps-per-epoch` cuts epochs out of it; a spelling run resumes exactly."""

import keras
import numpy as np
import pytest

from keras_nmt.data.pipeline import tokenize_pairs
from keras_nmt.text import make_tokenizer
from keras_nmt.workshop.run.task import PairStream, TranslationTask
from keras_nmt.workshop.run.train_config import TrainConfig
from keras_nmt.workshop.run.trainer import train
from keras_nmt.workshop.spelling.noise import NoiseGenerator
from keras_nmt.workshop.spelling.spelling_data import SpellingData
from keras_nmt.workshop.spelling.task import SpellingTask
from tests.training.test_trainer import TINY, CrashAtBatch

PAIRS = [("ab", "xyz"), ("abc", "x"), ("a", "yy"), ("bbbbbb", "zzzzzzzz"), ("ba", "zy"),
         ("cab", "xy"), ("bc", "yyz"), ("cc", "z")]
QUIET = dict(print_fn=lambda *_: None)


def targets_of(dataset):
    return [targets.numpy() for _, targets in dataset]


def test_pair_stream_counts_the_pipelines_targets_and_starts_anywhere():
    tokenizer = make_tokenizer("char").build(["abcxyz"])
    tokenized = tokenize_pairs(PAIRS, tokenizer, tokenizer, max_length=6)  # drops one pair
    stream = PairStream(TrainConfig(batch_size=2, seed=0), tokenized)
    assert stream.batches_per_pass == 4  # 7 pairs in batches of 2
    first_pass = targets_of(stream.batches(0, 4))
    # Non-padding targets: y + END of every pair kept.
    assert stream.target_tokens_per_pass == 4 + 2 + 3 + 3 + 3 + 4 + 2 == sum(
        int(np.count_nonzero(t)) for t in first_pass)
    whole = targets_of(stream.batches(0, 11))
    assert len(whole) == 11 and [t.tolist() for t in whole[:4]] == [t.tolist() for t in first_pass]
    for start in (1, 4, 6, 9):  # within the first pass, at a pass boundary, in later passes
        part = targets_of(stream.batches(start, 11))
        assert [t.tolist() for t in part] == [t.tolist() for t in whole[start:]]
    assert [t.tolist() for t in whole[4:8]] != [t.tolist() for t in first_pass]  # reshuffled


class CountBatches(keras.callbacks.Callback):
    def __init__(self):
        super().__init__()
        self.per_epoch = {}

    def on_epoch_begin(self, epoch, logs=None):
        self.epoch = epoch

    def on_train_batch_end(self, batch, logs=None):
        self.per_epoch[self.epoch] = self.per_epoch.get(self.epoch, 0) + 1


def test_steps_per_epoch_cuts_the_translation_stream_into_epochs(tmp_path):
    counter = CountBatches()
    config = TrainConfig(epochs=3, steps_per_epoch=5, output=str(tmp_path / "run"), **TINY)
    result = train(config, extra_callbacks=[counter], **QUIET)
    # 256 pairs in batches of 32 are 8 batches a pass; the flag makes epochs of 5.
    assert counter.per_epoch == {0: 5, 1: 5, 2: 5}
    assert int(result.model.optimizer.iterations.numpy()) == 15
    assert len(result.history["val_bleu"]) == 3
    assert result.target_tokens_per_epoch == pytest.approx(
        TranslationTask().training_stream(
            config, TranslationTask().load_pairs(config)[0], result.translator.source_tokenizer,
            result.translator.target_tokenizer).target_tokens_per_pass * 5 / 8)


SENTENCES = [f"the {animal} number {i} sat on the mat" for i in range(60)
             for animal in ("cat", "dog")][:96]


def test_a_killed_spelling_run_resumes_to_the_same_weights(tmp_path):
    data = SpellingData.from_sentences(SENTENCES, NoiseGenerator(word_rate=0.5), seed=1,
                                       valid_size=8, test_size=8)
    tiny = {**TINY, "train_size": None, "valid_size": None, "tokenizer": "char",
            "max_length": 60}
    full = train(TrainConfig(epochs=2, output=str(tmp_path / "full"), **tiny),
                 task=SpellingTask(data), **QUIET)
    config = TrainConfig(epochs=2, output=str(tmp_path / "run"), **tiny)
    with pytest.raises(KeyboardInterrupt):  # 3 batches of epoch 1 trained, the backup holds 2
        train(config, task=SpellingTask(data), extra_callbacks=[CrashAtBatch(1, 2)], **QUIET)
    result = train(config, task=SpellingTask(data), **QUIET)
    # 80 sentences in batches of 32: 3 batches a pass; the noise of the batches trained after
    # the crash is the uninterrupted run's, so the weights are bitwise equal (on CPU).
    assert int(result.model.optimizer.iterations.numpy()) == 2 * 3
    for resumed, uninterrupted in zip(result.model.get_weights(), full.model.get_weights(),
                                      strict=True):
        np.testing.assert_array_equal(resumed, uninterrupted)
    assert full.target_tokens_per_epoch == sum(len(s) + 1 for s in data.train)


@pytest.mark.parametrize("layout", ["single file", "with --valid"])
def test_a_capped_file_holds_only_its_sample_the_same_as_the_whole_lists(tmp_path, monkeypatch,
                                                                        layout):
    """`train --train-size 2000` read a whole 2 GB corpus into memory (9 GB, killed). The file
    is now read twice, holding only the sample, and the sample is the one `cap_pairs` draws
    from the whole list (the same seed gives the same pairs as before)."""
    import keras_nmt.workshop.run.task as task  # noqa: PLC0415

    data = tmp_path / "big.tsv"
    data.write_text("".join(f"s{i}\tt{i}\n" for i in range(500)))
    valid = tmp_path / "valid.tsv"
    valid.write_text("".join(f"v{i}\tw{i}\n" for i in range(40)))
    more = {"valid": str(valid)} if layout == "with --valid" else {}
    config = TrainConfig(data=str(data), train_size=30, valid_size=7, seed=3, **more)
    held = []
    real = task.load_corpus

    def counting(*args, **kwargs):
        corpus = real(*args, **kwargs)
        held.append(len(corpus.pairs))
        return corpus

    monkeypatch.setattr(task, "load_corpus", counting)
    train_pairs, valid_pairs = task.load_pairs(config)
    assert max(held) <= 30 + 7 and len(train_pairs) == 30 and len(valid_pairs) == 7
    # What the whole list gave (the code before): a permutation's hold-out, then `cap_pairs`.
    pairs = [(f"s{i}", f"t{i}") for i in range(500)]
    if layout == "single file":
        order = np.random.default_rng(3).permutation(500)
        expected_valid = [pairs[i] for i in sorted(order[:7])]
        rest = [pairs[i] for i in sorted(order[7:])]
    else:
        expected_valid = task.cap_pairs([(f"v{i}", f"w{i}") for i in range(40)], 7, 4)
        rest = pairs
    assert valid_pairs == expected_valid
    assert train_pairs == task.cap_pairs(rest, 30, 3)
