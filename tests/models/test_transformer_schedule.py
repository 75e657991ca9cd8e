"""InverseSqrtSchedule (the Transformer's learning rate) and the paper's Adam it trains with."""

import keras
import numpy as np

from keras_nmt.training.fit import compile_model
from keras_nmt.training.inverse_sqrt_schedule import InverseSqrtSchedule
from keras_nmt.workshop.run.train_config import TrainConfig


def paper_rate(step, d_model, warmup):
    return d_model**-0.5 * min(step**-0.5, step * warmup**-1.5)


def test_rates_follow_the_formula():
    schedule = InverseSqrtSchedule(d_model=256, warmup_steps=4000)
    for step in (1, 10, 100, 3999, 4000, 4001, 10000, 100000):
        rate = float(keras.ops.convert_to_numpy(schedule(step)))
        np.testing.assert_allclose(rate, paper_rate(step, 256, 4000), rtol=1e-5)
    # Peak at the end of warm-up: (d_model * warmup)^-0.5.
    np.testing.assert_allclose(float(schedule(4000)), (256 * 4000) ** -0.5, rtol=1e-5)
    # Step 0 (the optimizer's count before its first update) gets the step-1 rate, not 0 or inf.
    np.testing.assert_allclose(float(schedule(0)), paper_rate(1, 256, 4000), rtol=1e-5)


def test_schedule_serializes():
    schedule = InverseSqrtSchedule(d_model=64, warmup_steps=100)
    assert schedule.get_config() == {"d_model": 64, "warmup_steps": 100}
    clone = keras.saving.deserialize_keras_object(keras.saving.serialize_keras_object(schedule))
    assert isinstance(clone, InverseSqrtSchedule)
    np.testing.assert_allclose(float(clone(50)), float(schedule(50)), rtol=1e-7)


def test_the_transformer_trains_with_the_papers_adam_on_the_schedule():
    model = keras.Sequential([keras.layers.Dense(1)])
    compile_model(model, TrainConfig(model="transformer", d_model=64, warmup_steps=100,
                                     clipnorm=1.0))
    config = model.optimizer.get_config()
    assert (config["beta_1"], config["beta_2"], config["epsilon"]) == (0.9, 0.98, 1e-9)
    assert config["clipnorm"] == 1.0
    assert config["learning_rate"]["registered_name"] == "keras_nmt>InverseSqrtSchedule"
    assert config["learning_rate"]["config"] == {"d_model": 64, "warmup_steps": 100}
    # Before any update, the optimizer's rate is the schedule's step-1 rate.
    np.testing.assert_allclose(float(model.optimizer.learning_rate), paper_rate(1, 64, 100),
                               rtol=1e-5)
