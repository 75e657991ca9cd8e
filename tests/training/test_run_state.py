"""`RunState`: the run's two clocks and its history, continued from a backup's copy."""

import json

import pytest

from keras_nmt.workshop.run import run_state
from keras_nmt.workshop.run.run_state import RunState, read_history


class _Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


def _epoch(state, clock, epoch, train, validation, loss):
    state.on_epoch_begin(epoch)
    clock.now += train
    state.on_test_begin()
    clock.now += validation
    state.on_epoch_end(epoch, {"loss": loss})


def test_cumulative_wall_and_step_time_continue_from_a_mid_epoch_backup(tmp_path, monkeypatch):
    clock = _Clock()
    monkeypatch.setattr(run_state.time, "monotonic", clock)
    path = tmp_path / "history.json"
    state = RunState(path)
    state.on_train_begin()
    clock.now += 1.0  # set-up before the first epoch counts as wall time
    _epoch(state, clock, 0, train=4.0, validation=1.0, loss=2.0)
    state.on_epoch_begin(1)
    clock.now += 3.0
    backup = json.loads(json.dumps(state.to_dict()))  # saved with the backup, mid-epoch 1
    assert backup["seconds"] == pytest.approx(9.0) and backup["step_seconds"] == 7.0
    clock.now += 2.0  # trained after the backup: lost with the kill, trained again below

    # A new process restores the backup; its clocks start when training starts again.
    clock.now += 50.0
    resumed = RunState(path)
    resumed.load(backup)
    clock.now += 10.0  # loading data, building the model: before training, not counted
    resumed.on_train_begin()
    _epoch(resumed, clock, 1, train=2.0, validation=1.0, loss=1.5)
    resumed.on_epoch_begin(2)  # no validation pass: all of the epoch is training
    clock.now += 5.0
    resumed.on_epoch_end(2, {"loss": 1.0})
    records = json.loads(path.read_text())
    assert [r["epoch"] for r in records] == [0, 1, 2]
    assert [r["seconds"] for r in records] == pytest.approx([6.0, 12.0, 17.0])
    assert [r["step_seconds"] for r in records] == pytest.approx([4.0, 9.0, 14.0])
    assert read_history(path)["loss"] == [2.0, 1.5, 1.0]


def test_a_replayed_epoch_replaces_its_record_and_the_later_ones(tmp_path, monkeypatch):
    clock = _Clock()
    monkeypatch.setattr(run_state.time, "monotonic", clock)
    state = RunState(tmp_path / "history.json")
    state.on_train_begin()
    for epoch in range(3):
        _epoch(state, clock, epoch, train=1.0, validation=0.0, loss=float(epoch))
    _epoch(state, clock, 1, train=1.0, validation=0.0, loss=9.0)
    assert [(r["epoch"], r["loss"]) for r in state.history] == [(0, 0.0), (1, 9.0)]
