"""ValidationScores: scores logged into History and monitored by EarlyStopping during fit."""

import keras
import numpy as np
import pytest

from keras_nmt.metrics import corpus_bleu, corpus_cer
from keras_nmt.workshop.run.validation_scores import ValidationScores

SOURCES = ["Hola, mundo.", "Buenas noches.", "¿Cómo estás, Tom?"]
REFERENCES = [
    ["Hello, world.", "Hi, world."],
    "Good night.",
    ["How are you, Tom?"],
]
PERFECT = ["Hi, world.", "Good night.", "How are you, Tom?"]
WRONG = ["zzz", "qqq", "xxx"]
PARTIAL = ["Hello, world.", "Good evening.", "How are you?"]


class ScriptedTranslator:
    """translate_fn returning scripted hypotheses, one list per call (then repeating the last)."""

    def __init__(self, outputs):
        self.outputs = outputs
        self.calls = []

    def __call__(self, sources):
        self.calls.append(list(sources))
        return self.outputs[min(len(self.calls) - 1, len(self.outputs) - 1)]


def _tiny_model_and_data():
    keras.utils.set_random_seed(0)
    model = keras.Sequential(
        [keras.Input((4,), dtype="int32"), keras.layers.Embedding(10, 4), keras.layers.Dense(10)]
    )
    model.compile(
        optimizer="sgd",
        loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
    )
    rng = np.random.default_rng(0)
    x = rng.integers(4, 10, size=(8, 4)).astype("int32")
    y = np.concatenate([x[:, :3], np.full((8, 1), 3)], axis=1).astype("int32")  # y + [END]
    return model, x, y


def test_scores_reach_history_and_early_stopping_stops():
    model, x, y = _tiny_model_and_data()
    translator = ScriptedTranslator([WRONG, PERFECT, PARTIAL])
    scores = ValidationScores(translator, SOURCES, REFERENCES)
    stop = keras.callbacks.EarlyStopping(monitor="val_bleu", mode="max", patience=0)
    history = model.fit(x, y, epochs=6, batch_size=4, verbose=0, callbacks=[scores, stop])

    # Epoch 0: 0, epoch 1: 100 (improves), epoch 2: lower -> stop after 3 epochs.
    assert len(history.history["loss"]) == 3
    assert stop.stopped_epoch == 2
    assert len(translator.calls) == 3
    assert translator.calls[0] == SOURCES
    bleu = history.history["val_bleu"]
    assert bleu[0] == 0.0
    assert bleu[1] == pytest.approx(100.0)
    assert bleu[2] == pytest.approx(corpus_bleu(PARTIAL, REFERENCES).score)
    assert 0.0 < bleu[2] < 100.0
    assert history.history["val_exact_match"] == pytest.approx([0.0, 1.0, 1 / 3])
    assert history.history["val_cer"][1] == 0.0
    assert history.history["val_cer"][2] == pytest.approx(corpus_cer(PARTIAL, REFERENCES).rate)
    assert history.history["val_chrf"][1] == pytest.approx(100.0)
    for key in ("val_bleu", "val_chrf", "val_cer", "val_exact_match"):
        assert all(type(v) is float for v in history.history[key])
    assert scores.last_hypotheses == PARTIAL
    assert [epoch for epoch, _ in scores.scores] == [0, 1, 2]


def test_order_matters_early_stopping_placed_first_sees_nothing():
    model, x, y = _tiny_model_and_data()
    translator = ScriptedTranslator([WRONG, PERFECT, PARTIAL])
    scores = ValidationScores(translator, SOURCES, REFERENCES)
    stop = keras.callbacks.EarlyStopping(monitor="val_bleu", mode="max", patience=0)
    with pytest.warns(UserWarning, match="val_bleu"):
        history = model.fit(x, y, epochs=4, batch_size=4, verbose=0, callbacks=[stop, scores])
    assert len(history.history["loss"]) == 4  # never stopped: the score came too late
    assert len(history.history["val_bleu"]) == 4  # History (appended last) still records it


def test_every_and_max_sentences_and_bytes():
    model, x, y = _tiny_model_and_data()
    translator = ScriptedTranslator([[b"Hi, world.", b"How are you, Tom?"]])
    scores = ValidationScores(
        translator, SOURCES, REFERENCES, every=2, max_sentences=2, prefix="dev_"
    )
    history = model.fit(x, y, epochs=4, batch_size=4, verbose=0, callbacks=[scores])
    # Evenly spaced, not the first two (files sorted by length would give the shortest).
    picked = [SOURCES[0], SOURCES[2]]
    assert translator.calls == [picked, picked]
    assert [epoch for epoch, _ in scores.scores] == [1, 3]
    assert history.history["dev_exact_match"] == [1.0, 1.0]
    assert "val_bleu" not in history.history


def test_bad_arguments():
    with pytest.raises(ValueError):
        ValidationScores(lambda s: s, SOURCES, REFERENCES[:2])
    with pytest.raises(ValueError):
        ValidationScores(lambda s: s, SOURCES, REFERENCES, every=0)
    with pytest.raises(ValueError):
        ValidationScores(lambda s: s[:1], SOURCES, REFERENCES).evaluate()
