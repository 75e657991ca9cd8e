"""The training run: determinism, resuming after a crash, learning the built-in dataset."""

import dataclasses
import json
import subprocess
import sys
import types

import keras
import numpy as np
import pytest

from keras_nmt.data.pipeline import make_dataset, tokenize_pairs
from keras_nmt.inference.translator import Translator
from keras_nmt.models.registry import build_model
from keras_nmt.workshop.copy_weights_by_layer_name import copy_weights_by_layer_name
from keras_nmt.workshop.evaluation import group_references, score_all
from keras_nmt.workshop.run import trainer
from keras_nmt.workshop.run.precision import PrecisionChoice
from keras_nmt.workshop.run.run_folder import RunFolder
from keras_nmt.workshop.run.task import load_pairs
from keras_nmt.workshop.run.train_config import TrainConfig
from keras_nmt.workshop.run.trainer import train
from tests.fixed_precision import FLOAT32

TINY = dict(
    train_size=256, valid_size=32, units=16, embedding_dim=8, batch_size=32, verbose=0,
    validation_sentences=16, samples=0, backup_every=2, precision=FLOAT32,
)


class CrashAtBatch(keras.callbacks.Callback):
    """Simulates a killed run: raises in the middle of epoch `epoch`."""

    def __init__(self, epoch, batch):
        super().__init__()
        self.crash_epoch, self.crash_batch, self.epoch = epoch, batch, None

    def on_epoch_begin(self, epoch, logs=None):
        self.epoch = epoch

    def on_train_batch_end(self, batch, logs=None):
        if self.epoch == self.crash_epoch and batch == self.crash_batch:
            self.iterations = int(self.model.optimizer.iterations.numpy())
            raise KeyboardInterrupt("simulated crash")


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory):
    """One uninterrupted 3-epoch TINY run (its `TrainResult` and folder), shared by the
    determinism and the resume tests, which must both reproduce its weights."""
    output = tmp_path_factory.mktemp("uninterrupted") / "full"
    result = train(TrainConfig(epochs=3, output=str(output), **TINY), print_fn=lambda *_: None)
    return types.SimpleNamespace(result=result, output=output)


def test_same_seed_same_weights(uninterrupted, tmp_path):
    config = TrainConfig(epochs=3, output=str(tmp_path / "again"), **TINY)
    again = train(config, print_fn=lambda *_: None)
    for first, second in zip(uninterrupted.result.model.get_weights(),
                             again.model.get_weights(), strict=True):
        np.testing.assert_array_equal(first, second)


def test_killed_run_resumes_exactly(uninterrupted, tmp_path):
    quiet = dict(print_fn=lambda *_: None)
    full = uninterrupted.result
    config = TrainConfig(epochs=3, output=str(tmp_path / "run"), **TINY)
    crash = CrashAtBatch(1, 4)  # 5 batches of epoch 1 trained, the last backup holds 4
    with pytest.raises(KeyboardInterrupt):
        train(config, extra_callbacks=[crash], **quiet)
    history = json.loads((tmp_path / "run" / "history.json").read_text())
    assert [record["epoch"] for record in history] == [0]  # epoch 0 was written before the crash
    result = train(config, **quiet)
    # Exactly the batches after the backup are trained: 3 epochs of 8 batches, no batch twice,
    # in the same order, so the weights are bitwise those of the uninterrupted run (on CPU).
    assert int(result.model.optimizer.iterations.numpy()) == 3 * 8
    for resumed, expected in zip(result.model.get_weights(), full.model.get_weights(),
                                 strict=True):
        np.testing.assert_array_equal(resumed, expected)
    assert len(result.history["loss"]) == 2  # the rest of epoch 1, then epoch 2
    history = json.loads((tmp_path / "run" / "history.json").read_text())
    assert [r["epoch"] for r in history] == [0, 1, 2]
    assert (tmp_path / "run" / "model.keras").exists()
    # The interrupted epoch's figures are those of all its batches (the backup kept the
    # metrics' running sums), as in the uninterrupted run.
    reference = json.loads((uninterrupted.output / "history.json").read_text())
    for record, expected in zip(history, reference, strict=True):
        for key in ("loss", "accuracy", "perplexity", "val_loss", "val_accuracy", "val_bleu"):
            assert record[key] == pytest.approx(expected[key], rel=1e-6), (record, key)
    # The run's clocks continue over the crash: cumulative, the steps within the wall time.
    seconds = [record["seconds"] for record in history]
    steps = [record["step_seconds"] for record in history]
    assert 0 < seconds[0] < seconds[1] < seconds[2] and 0 < steps[0] < steps[1] < steps[2]
    assert all(step < wall for step, wall in zip(steps, seconds, strict=True))


def test_a_killed_run_with_checkpoint_averaging_resumes_to_the_same_average(tmp_path):
    quiet = dict(print_fn=lambda *_: None)
    averaging = dict(epochs=3, average_checkpoints=3, average_every=5, **TINY)
    full = train(TrainConfig(output=str(tmp_path / "full"), **averaging), **quiet)
    config = TrainConfig(output=str(tmp_path / "run"), **averaging)
    # 7 batches of epoch 1 trained (step 15, a checkpoint); the last backup holds step 14.
    with pytest.raises(KeyboardInterrupt):
        train(config, extra_callbacks=[CrashAtBatch(1, 6)], **quiet)
    assert (tmp_path / "run" / "average" / "000000015.npz").exists()
    result = train(config, **quiet)
    for resumed, uninterrupted in zip(result.model.get_weights(), full.model.get_weights(),
                                      strict=True):
        np.testing.assert_array_equal(resumed, uninterrupted)
    # Both the averaged model and the last weights were scored after every epoch.
    assert len(full.history["val_bleu"]) == len(full.history["val_last_bleu"]) == 3
    assert sorted(p.name for p in (tmp_path / "run" / "average").iterdir()) == [
        "000000010.npz", "000000015.npz", "000000020.npz"]


class WeightsAfterFirstBatch(keras.callbacks.Callback):
    def on_train_batch_end(self, batch, logs=None):
        if not hasattr(self, "weights"):
            self.weights = self.model.get_weights()


def test_the_weights_where_the_budget_ran_out_are_kept(tmp_path, capsys):
    # A budget of a few microseconds runs out at the first batch's end: training stops after
    # that epoch, and the snapshot holds the weights of that moment (1 of 8 batches).
    first_batch = WeightsAfterFirstBatch()
    config = TrainConfig(epochs=3, time_budget=1e-7, output=str(tmp_path / "run"),
                         **{**TINY, "verbose": 1})
    lines = []
    result = train(config, extra_callbacks=[first_batch], print_fn=lines.append)
    assert len(result.history["loss"]) == 1
    # What ran is said exactly (issue 68: "trained 2 epochs" for 1.07, and Keras' line
    # `1752/1752 - 30s - 17ms/step` for an epoch of 123 batches); a live progress bar only on a
    # terminal (here a captured stdout: one line per epoch, no escape codes).
    [epoch_line] = [line for line in lines if line.startswith("epoch 1/3: ")]
    assert epoch_line.startswith("epoch 1/3: 1 batch (to 1 of 8) in ") and "ms/batch" in epoch_line
    [trained] = [line for line in lines if line.startswith("trained ")]
    assert trained.startswith("trained 0.125 epochs of 3 (1 batch) in ") and "ms/batch" in trained
    assert "\x1b[" not in capsys.readouterr().out
    point = json.loads((tmp_path / "run" / "budget.json").read_text())
    assert point["epochs"] == 1 / 8 and point["seconds"] > 0
    result.model.load_weights(tmp_path / "run" / "budget.weights.h5")
    for kept, seen in zip(result.model.get_weights(), first_batch.weights, strict=True):
        np.testing.assert_array_equal(kept, seen)


class CountBatches(keras.callbacks.Callback):
    def on_train_begin(self, logs=None):
        self.batches = 0

    def on_train_batch_end(self, batch, logs=None):
        self.batches += 1


def test_token_batches_train_and_validate_on_the_usual_batches(tmp_path):
    config = TrainConfig(epochs=1, output=str(tmp_path / "run"), batch_tokens=700, **TINY)
    lines, counter = [], CountBatches()
    result = train(config, print_fn=lines.append, extra_callbacks=[counter])
    assert any(line.startswith("precision: ") for line in lines)  # the choice and why
    train_pairs, valid_pairs = load_pairs(config)
    tokenizers = result.translator.source_tokenizer, result.translator.target_tokenizer
    tokenized = tokenize_pairs(train_pairs, *tokenizers, max_length=config.max_length)
    token_batches = make_dataset(tokenized, batch_tokens=700, seed=config.seed)
    assert counter.batches == len(list(token_batches)) != -(-len(tokenized) // 32)
    # Validation is unchanged: batches of --batch-size, the same loss as evaluating on them.
    valid = make_dataset(valid_pairs, *tokenizers, batch_size=32, shuffle=False,
                         max_length=config.max_length)
    loss = result.model.evaluate(valid, verbose=0, return_dict=True)["loss"]
    assert result.history["val_loss"][-1] == pytest.approx(loss, rel=1e-5)
    assert "val_bleu" in result.history


@pytest.mark.slow
def test_the_lstm_learns_the_dates_and_its_twin_translates_them_the_same(tmp_path):
    # The scores asserted are those of all 200 validation pairs, after training; the BLEU of
    # each epoch (`validation_sentences`, which never changes the weights) is not, so 8 will do.
    config = TrainConfig(
        epochs=6, train_size=8000, valid_size=200, units=128, embedding_dim=32, batch_size=64,
        learning_rate=5e-3, verbose=0, validation_sentences=8, samples=0,
        output=str(tmp_path / "run"),
    )
    result = train(config, print_fn=lambda *_: None)
    # Chance of an exact 10-character ISO date is nil; seen: 79-98%.
    assert result.scores["exact_match"] > 0.6, result.scores
    assert result.history["val_accuracy"][-1] > 0.95
    # The subclassed twin is the same model in Keras' other API (trained alike: seen 79-83%),
    # so training it too would test `fit` twice. Given the learned weights, it translates every
    # validation sentence as the functional twin does, through its own decoding step.
    translator = result.translator
    source, target = translator.source_tokenizer, translator.target_tokenizer
    twin = build_model("lstm", "subclassed", source.vocab_size, target.vocab_size,
                       dataclasses.asdict(config))
    ones = np.ones([1, 3], np.int32)
    twin({"encoder_tokens": ones, "decoder_tokens": ones})
    copy_weights_by_layer_name(translator.model, twin)
    twin_translator = Translator(twin, source, target, translator.max_source_length,
                                 translator.max_target_length)
    sources = [pair[0] for pair in load_pairs(config)[1]]
    assert len(sources) == 200
    assert twin_translator.translate_texts(sources) == translator.translate_texts(sources)


def test_decaying_teacher_forcing_schedule_trains_the_subclassed_twin(tmp_path):
    config = TrainConfig(
        api="subclassed", teacher_forcing="linear:0.05", epochs=2,
        output=str(tmp_path / "run"), **TINY,
    )
    result = train(config, print_fn=lambda *_: None)
    # p = 1 - 0.05 * step at the last step of each epoch: a whole step count, decreasing.
    logged = result.history["teacher_forcing"]
    steps = [(1 - p) / 0.05 for p in logged]
    assert steps == pytest.approx([round(step) for step in steps], abs=1e-4)
    assert 0 < logged[1] < logged[0] < 1
    assert np.isfinite(result.history["loss"]).all()


def test_a_trained_transformer_run_reloads_in_a_fresh_process(tmp_path):
    # The compiled optimizer holds the warm-up schedule: loading needs it registered on import.
    config = TrainConfig(
        model="transformer", epochs=1, d_model=8, num_heads=2, ff_dim=8, num_layers=1,
        output=str(tmp_path / "run"), **{k: v for k, v in TINY.items() if k != "units"},
    )
    train(config, print_fn=lambda *_: None)
    code = (
        "import sys; from keras_nmt.workshop.run.run_folder import RunFolder; "
        "run = RunFolder.load(sys.argv[1]); print(type(run.model).__name__)"
    )
    result = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path / "run")], capture_output=True, text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip().endswith("TransformerFunctional")


def test_a_bf16_run_restores_the_global_policy_and_is_scored_as_saved(tmp_path, monkeypatch):
    """`--precision auto` picks bf16 on a CPU with native bf16 (faked here): the run trains in
    it, and the models built after it (the next test, compare's next configuration) do not;
    its final scores are those of its saved model, which decodes in float32."""
    monkeypatch.setattr(trainer, "run_precision",
                        lambda run, requested, shapes: PrecisionChoice("mixed_bfloat16", "faked"))
    config = TrainConfig(epochs=1, output=str(tmp_path / "run"), **{**TINY, "precision": "auto"})
    result = train(config, print_fn=lambda line: None)
    assert result.model.dtype_policy.name == "mixed_bfloat16"
    assert keras.mixed_precision.global_policy().name == "float32"
    # Scored as evaluate.py scores the run: its saved model, loaded in float32, same weights.
    assert result.translator.model.dtype_policy.name == "float32"
    for trained, scored in zip(result.model.get_weights(), result.translator.model.get_weights(),
                               strict=True):
        np.testing.assert_array_equal(trained, scored)
    sources, references = group_references(load_pairs(config)[1])
    hypotheses = RunFolder.load(config.output).translator().translate_texts(sources)
    assert {**score_all(hypotheses, references), "train_seconds": result.seconds} == result.scores
