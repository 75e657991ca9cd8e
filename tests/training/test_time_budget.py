import json

from keras_nmt.training import time_budget as time_budget_module
from keras_nmt.training.time_budget import TimeBudget


class _Model:
    stop_training = False


def _budget(clock_file, monkeypatch, now):
    monkeypatch.setattr(time_budget_module.time, "monotonic", lambda: now[0])
    budget = TimeBudget(1.0, clock_file, save_every=2)
    budget.set_model(_Model())
    return budget


def test_the_clock_continues_across_processes(tmp_path, monkeypatch):
    clock = tmp_path / "time_spent.json"
    now = [100.0]
    first = _budget(clock, monkeypatch, now)
    first.on_train_begin()
    now[0] = 125.0
    first.on_train_batch_end(1)  # every 2 batches: written
    assert json.loads(clock.read_text())["seconds"] == 25.0
    now[0] = 140.0
    first.on_epoch_end(0)
    assert json.loads(clock.read_text())["seconds"] == 40.0 and not first.model.stop_training

    # A new process (or fit_from's second fit) resumes the count: 40 + 21 s > 1 minute.
    now[0] = 5000.0
    second = _budget(clock, monkeypatch, now)
    second.on_train_begin()
    now[0] = 5015.0
    second.on_epoch_end(1)
    assert not second.model.stop_training  # 55 s
    now[0] = 5021.0
    second.on_epoch_end(2)
    assert second.model.stop_training and json.loads(clock.read_text())["seconds"] == 61.0


def test_without_a_clock_file_the_budget_is_the_process(monkeypatch):
    now = [0.0]
    budget = _budget(None, monkeypatch, now)
    budget.on_train_begin()
    now[0] = 59.0
    budget.on_epoch_end(0)
    assert not budget.model.stop_training
    now[0] = 60.0
    budget.on_epoch_end(1)
    assert budget.model.stop_training
