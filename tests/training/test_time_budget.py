import contextlib
import json

from keras_nmt.workshop.run import run_state as run_state_module
from keras_nmt.workshop.run.epoch_progress import EpochProgress
from keras_nmt.workshop.run.run_state import RunState
from keras_nmt.workshop.run.time_budget import TimeBudget


class _Model:
    stop_training = False


def _budget(clock, monkeypatch, now):
    monkeypatch.setattr(run_state_module.time, "monotonic", lambda: now[0])
    budget = TimeBudget(1.0, clock=clock)
    budget.set_model(_Model())
    return budget


def test_the_clock_is_the_runs_restored_state(monkeypatch):
    now = [100.0]
    state = RunState()
    first = _budget(state, monkeypatch, now)
    first.on_train_begin()
    now[0] = 140.0
    first.on_epoch_end(0)
    assert first.elapsed() == 40.0 and not first.model.stop_training
    saved = state.to_dict()  # what a backup keeps

    # A new process restores the backup's state: the budget continues from it.
    now[0] = 5000.0
    restored = RunState()
    restored.load(saved)
    second = _budget(restored, monkeypatch, now)
    second.on_train_begin()
    now[0] = 5015.0
    second.on_epoch_end(1)
    assert not second.model.stop_training  # 55 s
    now[0] = 5021.0
    second.on_epoch_end(2)
    assert second.model.stop_training and second.elapsed() == 61.0


def test_without_a_run_state_the_budget_is_the_process(monkeypatch):
    now = [0.0]
    budget = _budget(None, monkeypatch, now)
    budget.on_train_begin()
    now[0] = 59.0
    budget.on_epoch_end(0)
    assert not budget.model.stop_training
    now[0] = 60.0
    budget.on_epoch_end(1)
    assert budget.model.stop_training


class _SavingModel(_Model):
    def __init__(self):
        self.saved = []

    holding = "weights"

    def save_weights(self, path):
        path.write_text(self.holding)
        self.saved.append(path.name)


def _snapshotting(tmp_path, monkeypatch, now, steps, batches_per_epoch=10, average=None):
    monkeypatch.setattr(run_state_module.time, "monotonic", lambda: now[0])
    budget = TimeBudget(1.0, snapshot_weights=tmp_path / "budget.weights.h5",
                        snapshot_point=tmp_path / "budget.json",
                        batches_per_epoch=batches_per_epoch, average=average)
    budget.set_model(_SavingModel())
    budget.set_params({"steps": steps})
    budget.on_train_begin()
    return budget


def test_the_weights_at_the_budget_are_kept_once(tmp_path, monkeypatch):
    now = [0.0]
    budget = _snapshotting(tmp_path, monkeypatch, now, steps=10)
    budget.on_epoch_begin(1)
    now[0] = 59.0
    budget.on_train_batch_end(2)
    assert not (tmp_path / "budget.json").exists()
    now[0] = 61.0
    budget.on_train_batch_end(3)  # the budget runs out after 4 of epoch 1's 10 batches
    assert json.loads((tmp_path / "budget.json").read_text()) == {"epochs": 1.4, "seconds": 61.0}
    assert (tmp_path / "budget.weights.h5").read_text() == "weights"
    # Saved under a temporary name unique to the process, then renamed: no half-written file.
    [saved] = budget.model.saved
    assert saved.startswith(".budget.weights.h5-") and saved.endswith(".weights.h5")
    budget.on_train_batch_end(4)
    budget.on_epoch_end(1)
    assert budget.model.saved == [saved] and budget.model.stop_training

    # A resumed run (a new process) does not take it again.
    resumed = _snapshotting(tmp_path, monkeypatch, now, steps=10)
    resumed.on_epoch_begin(2)
    resumed.on_train_batch_end(0)
    assert resumed.model.saved == []


def test_a_resumed_epoch_counts_its_batches_from_the_epoch_start(tmp_path, monkeypatch):
    now = [0.0]
    budget = _snapshotting(tmp_path, monkeypatch, now, steps=6)  # resumed after 4 of 10
    budget.on_epoch_begin(2)
    now[0] = 70.0
    budget.on_train_batch_end(0)
    assert json.loads((tmp_path / "budget.json").read_text())["epochs"] == 2.5


def test_a_budget_running_out_during_validation_keeps_the_epoch_end(tmp_path, monkeypatch):
    now = [0.0]
    budget = _snapshotting(tmp_path, monkeypatch, now, steps=10, batches_per_epoch=None)
    budget.on_epoch_begin(0)
    now[0] = 50.0
    budget.on_train_batch_end(9)
    now[0] = 65.0  # validation
    budget.on_epoch_end(0)
    assert json.loads((tmp_path / "budget.json").read_text())["epochs"] == 1


class _Average:
    """Stands for `CheckpointAverage`: the model holds the average inside `applied()`."""

    model = None

    @contextlib.contextmanager
    def applied(self):
        self.model.holding = "averaged"
        yield
        self.model.holding = "weights"


def test_with_checkpoint_averaging_the_snapshot_holds_the_average(tmp_path, monkeypatch):
    now, average = [0.0], _Average()
    budget = _snapshotting(tmp_path, monkeypatch, now, steps=10, average=average)
    average.model = budget.model
    budget.on_epoch_begin(0)
    now[0] = 61.0
    budget.on_train_batch_end(3)
    assert (tmp_path / "budget.weights.h5").read_text() == "averaged"
    assert budget.model.holding == "weights"  # training goes on with its own weights


def test_an_epoch_line_counts_the_batches_that_ran():
    """Keras ended every epoch's line at its full count (`1752/1752 - 30s - 17ms/step` for 123
    batches): a cut epoch, a resumed one and a whole one say what ran."""
    lines = []
    progress = EpochProgress(10, print_fn=lines.append)
    for steps, ran in ((10, 3), (4, 4), (10, 10)):  # cut at 3; resumed at 6 of 10; whole
        progress.set_params({"verbose": 2, "epochs": 5, "steps": steps})
        progress.on_epoch_begin(1)
        for batch in range(ran):
            progress.on_train_batch_end(batch)
        progress.on_epoch_end(1, {"loss": 2.5})
    assert [line.split(" in ")[0] for line in lines] == [
        "epoch 2/5: 3 batches (to 3 of 10)", "epoch 2/5: 4 batches (to 10 of 10)",
        "epoch 2/5: 10 batches"]
    assert all("ms/batch), validation" in line and line.endswith("- loss: 2.5")
               for line in lines)
