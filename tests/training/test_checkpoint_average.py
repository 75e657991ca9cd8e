"""`CheckpointAverage`: the mean of the current weights and the latest checkpoints."""

import keras
import numpy as np
import pytest

from keras_nmt.workshop.run.checkpoint_average import CheckpointAverage


class Recorder(keras.callbacks.Callback):
    """The trainable weights after every optimizer step."""

    def __init__(self):
        super().__init__()
        self.steps = []

    def on_train_batch_end(self, batch, logs=None):
        self.steps.append([keras.ops.convert_to_numpy(v) for v in self.model.trainable_variables])


def _fit(average, steps, initial_epoch=0):
    recorder = Recorder()
    data = np.random.default_rng(initial_epoch).normal(size=(steps * 4, 3)).astype("float32")
    average.model.fit(data, data[:, :2], batch_size=4, epochs=initial_epoch + 1,
                      initial_epoch=initial_epoch, shuffle=False, verbose=0,
                      callbacks=[average, recorder])
    return recorder.steps


def _model():
    keras.utils.set_random_seed(0)
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])
    model.compile(keras.optimizers.SGD(0.1), "mse")
    return model


def _mean(points):
    return [np.mean(np.stack(values), axis=0) for values in zip(*points, strict=True)]


def test_the_average_is_the_mean_of_the_last_weights_and_the_latest_checkpoints(tmp_path):
    model = _model()
    average = CheckpointAverage(tmp_path / "average", count=3, every=2)
    average.set_model(model)
    steps = _fit(average, 7)  # checkpoints at steps 2, 4, 6; the weights of step 7
    expected = _mean([steps[3], steps[5], steps[6]])
    for got, want in zip(average.average(), expected, strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-6)
    with average.applied():
        for variable, want in zip(model.trainable_variables, expected, strict=True):
            np.testing.assert_allclose(keras.ops.convert_to_numpy(variable), want, rtol=1e-6)
    for variable, last in zip(model.trainable_variables, steps[6], strict=True):
        np.testing.assert_array_equal(keras.ops.convert_to_numpy(variable), last)  # restored
    assert sorted(p.name for p in (tmp_path / "average").iterdir()) == [
        "000000002.npz", "000000004.npz", "000000006.npz"]


def test_a_checkpoint_of_the_current_step_is_counted_once(tmp_path):
    model = _model()
    average = CheckpointAverage(tmp_path / "average", count=3, every=2)
    average.set_model(model)
    steps = _fit(average, 6)  # the checkpoint of step 6 holds the current weights
    average.apply()
    for variable, want in zip(model.trainable_variables, _mean(steps[1::2]), strict=True):
        np.testing.assert_allclose(keras.ops.convert_to_numpy(variable), want, rtol=1e-6)


def test_checkpoints_after_the_restored_step_are_dropped(tmp_path):
    model = _model()
    average = CheckpointAverage(tmp_path / "average", count=4, every=2)
    average.set_model(model)
    steps = _fit(average, 6)
    (tmp_path / "average" / "000000008.npz.partial").write_bytes(b"half")  # a killed write
    model.optimizer.iterations.assign(3)  # a backup of step 3 restored: 4 and 6 are newer
    average.on_train_begin()
    assert [p for p, _ in average._checkpoints()] == [2]
    assert average.step == 3
    # The half-written file is no checkpoint: the mean of the weights and the one of step 2.
    for got, want in zip(average.average(), _mean([steps[5], steps[1]]), strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-6)


@pytest.mark.parametrize("count, every", [(1, 10), (3, 0)])
def test_bad_arguments_are_refused(tmp_path, count, every):
    with pytest.raises(ValueError, match="must be >="):
        CheckpointAverage(tmp_path, count, every)
