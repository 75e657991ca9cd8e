import json

import pytest

from keras_nmt.comparison import epoch_timer
from keras_nmt.comparison.epoch_timer import EpochTimer


class _Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


def _epoch(timer, clock, epoch, train, validation):
    timer.on_epoch_begin(epoch)
    clock.now += train
    timer.on_test_begin()
    clock.now += validation
    timer.on_epoch_end(epoch)


def test_records_cumulative_wall_and_step_time_and_resumes(tmp_path, monkeypatch):
    clock = _Clock()
    monkeypatch.setattr(epoch_timer.time, "monotonic", clock)
    path = tmp_path / "times.json"
    timer = EpochTimer(path)
    timer.on_train_begin()
    clock.now += 1.0  # set-up before the first epoch counts as wall time
    _epoch(timer, clock, 0, train=4.0, validation=1.0)
    _epoch(timer, clock, 1, train=3.0, validation=2.0)
    records = json.loads(path.read_text())
    assert [r["seconds"] for r in records] == pytest.approx([6.0, 11.0])
    assert [r["train_seconds"] for r in records] == pytest.approx([4.0, 7.0])

    # A crash during epoch 2, then a resumed run that replays epoch 1 from the backup.
    clock.now += 50.0
    resumed = EpochTimer(path)
    resumed.on_train_begin()
    _epoch(resumed, clock, 1, train=2.0, validation=1.0)
    resumed.on_epoch_begin(2)  # no validation pass: all of the epoch is training
    clock.now += 5.0
    resumed.on_epoch_end(2)
    records = json.loads(path.read_text())
    assert [r["epoch"] for r in records] == [0, 1, 2]
    assert [r["seconds"] for r in records] == pytest.approx([6.0, 9.0, 14.0])
    assert [r["train_seconds"] for r in records] == pytest.approx([4.0, 6.0, 11.0])


def test_a_resumption_in_the_middle_of_an_epoch_continues_its_clocks(tmp_path, monkeypatch):
    clock = _Clock()
    monkeypatch.setattr(epoch_timer.time, "monotonic", clock)
    path = tmp_path / "times.json"
    timer = EpochTimer(path, save_every=2)
    timer.on_train_begin()
    _epoch(timer, clock, 0, train=4.0, validation=1.0)
    timer.on_epoch_begin(1)
    clock.now += 3.0
    timer.on_train_batch_end(0)  # not a multiple of save_every: nothing written
    timer.on_train_batch_end(1)
    assert json.loads(path.read_text())[-1] == {
        "epoch": 1, "partial": True, "seconds": pytest.approx(8.0),
        "train_seconds": pytest.approx(7.0)}

    # Killed here; the new process resumes epoch 1 from its backup and finishes it.
    clock.now += 100.0
    resumed = EpochTimer(path, save_every=2)
    resumed.on_train_begin()
    _epoch(resumed, clock, 1, train=2.0, validation=1.0)
    records = json.loads(path.read_text())
    assert [(r["epoch"], r.get("partial")) for r in records] == [(0, None), (1, None)]
    assert [r["seconds"] for r in records] == pytest.approx([5.0, 11.0])
    assert [r["train_seconds"] for r in records] == pytest.approx([4.0, 9.0])
