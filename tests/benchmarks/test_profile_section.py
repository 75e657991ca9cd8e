"""The profile section: the four cumulative compilations and the shares computed from them."""

import argparse

import keras
import numpy as np
import pytest

from keras_nmt.models.flops import dense_flops
from keras_nmt.models.registry import build_model
from keras_nmt.text import make_tokenizer
from keras_nmt.training.masked_sparse_cross_entropy import MaskedSparseCrossEntropy
from keras_nmt.workshop.benchmarks import train_section
from keras_nmt.workshop.benchmarks.flops import forward_flops
from keras_nmt.workshop.benchmarks.speed import batch_lengths, synthetic_lengths, token_batches
from keras_nmt.workshop.run.train_config import TrainConfig

OPTIONS = {"embedding_dim": 8, "units": 16, "num_layers": 1}
VOCAB = 30


def _batches(count=3):
    rng = np.random.default_rng(0)
    lengths = synthetic_lengths(48, rng, median=6.0, max_length=12)
    return token_batches(*lengths, 128, VOCAB, VOCAB, rng, max_batches=count)


def test_profile_step_times_four_parts_and_leaves_the_training_recipe():
    models = []

    def build():
        keras.utils.set_random_seed(0)
        models.append(build_model("lstm", "functional", VOCAB, VOCAB, OPTIONS))
        return models[-1]

    config = TrainConfig(model="lstm", clipnorm=0.5, **OPTIONS)
    seconds = train_section.profile_step(build, config, _batches(), steps=2)
    assert len(seconds) == 4 and all(s > 0 for s in seconds)
    # Four copies: the real step's is compiled as compile_model does (Adam, clipnorm, the loss),
    # the others with plain SGD; only the two training copies moved away from the first weights.
    real = models[0]
    assert isinstance(real.optimizer, keras.optimizers.Adam) and real.optimizer.clipnorm == 0.5
    assert isinstance(real.loss, MaskedSparseCrossEntropy)
    assert [type(m.optimizer) for m in models[1:]] == [keras.optimizers.SGD] * 3
    assert models[1].loss is train_section.logit_mean
    assert isinstance(models[2].loss, MaskedSparseCrossEntropy)
    weights = [m.get_layer("output_projection").get_weights()[0] for m in models]
    np.testing.assert_array_equal(weights[1], weights[2])
    assert not np.array_equal(weights[1], weights[3])
    assert not np.array_equal(weights[1], weights[0])


def test_logit_mean_reads_every_logit():
    logits = np.arange(12, dtype="float32").reshape(1, 3, 4)
    assert float(train_section.logit_mean(None, logits)) == pytest.approx(5.5)


class _Context:
    """The parts of `BenchmarkContext` the section uses, with a tiny corpus and a fixed peak."""

    def __init__(self, options, pairs):
        self.options = options
        tokenizer = make_tokenizer("char").build([text for pair in pairs for text in pair])
        self._data = (pairs, pairs, tokenizer, tokenizer)

    def data(self, section):
        return self._data

    def peak(self, dtype):
        return {"flops_per_second": 1e9, "dtype": dtype}

    def model_options(self, name):
        return dict(OPTIONS)

    def environment(self):
        return {"machine": {}, "dtype_policy": "float32"}


def test_shares_and_mfu_come_from_the_timed_parts(monkeypatch):
    pairs = [(f"hola {i}", f"hello {i}") for i in range(40)]
    options = argparse.Namespace(
        quick=False, train_batches=3, train_steps=4, batch_size=8, batch_tokens=None, seed=0,
        same_shape=False, jit_compile=[False], precisions=["float32"], models=["lstm"],
        apis=["functional"],
    )
    seen = {}

    def fake_profile_step(build, config, batches, steps):
        seen["batches"] = batches
        return [1.0, 2.0, 5.0, 6.0]

    monkeypatch.setattr(train_section, "profile_step", fake_profile_step)
    context = _Context(options, pairs)
    [record] = train_section.run_profile(context)
    assert record["shares"] == pytest.approx(
        dict(zip(train_section.PARTS, [1 / 6, 1 / 6, 3 / 6, 1 / 6], strict=True))
    )
    batches = seen["batches"]
    assert len(batches) == 3
    config = {**OPTIONS, "target_vocab_size": context.data("profile")[3].vocab_size}
    per_batch = [forward_flops("lstm", config, *batch_lengths([b])) for b in batches]
    # 4 timed steps over 3 batches: batches 0, 1, 2, 0.
    forward = np.mean([per_batch[i % 3] for i in range(4)])
    assert record["mfu_forward"] == pytest.approx(forward / 1.0 / 1e9)
    assert record["mfu_backward"] == pytest.approx(2 * forward / 3.0 / 1e9)
    assert record["mfu_step"] == pytest.approx(3 * forward / 6.0 / 1e9)
    targets = batch_lengths(batches)[1]
    output = dense_flops(targets.sum(), OPTIONS["units"], config["target_vocab_size"])
    assert record["output_projection_flop_share"] == pytest.approx(output / sum(per_batch))
    assert 0 < record["output_projection_flop_share"] < 1


def test_same_shape_pads_every_fixed_batch_to_one_shape_and_keeps_the_tokens():
    pairs = [(f"hola {'a' * i}", f"hello {'b' * (i % 7)}") for i in range(40)]
    options = argparse.Namespace(quick=False, train_batches=3, batch_size=8, batch_tokens=None,
                                 seed=0, same_shape=False)
    context = _Context(options, pairs)
    batches, _, _ = train_section.fixed_batches(context, "train")
    options.same_shape = True
    padded, _, _ = train_section.fixed_batches(context, "train")
    source = max(np.shape(inputs["encoder_tokens"])[1] for inputs, _ in batches)
    target = max(np.shape(targets)[1] for _, targets in batches)
    assert len({np.shape(inputs["encoder_tokens"])[1] for inputs, _ in batches}) > 1
    for (inputs, targets), (wide, wide_targets) in zip(batches, padded, strict=True):
        assert np.shape(wide["encoder_tokens"])[1] == source
        assert np.shape(wide["decoder_tokens"])[1] == np.shape(wide_targets)[1] == target
        for key in inputs:
            width = np.shape(inputs[key])[1]
            np.testing.assert_array_equal(wide[key][:, :width], inputs[key])
            assert not wide[key][:, width:].any()
        np.testing.assert_array_equal(wide_targets[:, : np.shape(targets)[1]], targets)
    np.testing.assert_array_equal(batch_lengths(padded)[1], batch_lengths(batches)[1])
