"""Recurrent parts under every backend: cuDNN setting, step-loop dropout, building outside loops."""

import keras
import numpy as np
import pytest

from keras_nmt.models.bahdanau.subclassed import BahdanauSeq2SeqSubclassed
from keras_nmt.models.lstm.subclassed import LstmSeq2SeqSubclassed
from keras_nmt.models.luong.subclassed import LuongSeq2SeqSubclassed
from keras_nmt.models.recurrent_parts import (
    cudnn_setting,
    sequence_lstm,
    step_dropout_masks,
)
from keras_nmt.special_ids import START_ID
from keras_nmt.training.masked_sparse_cross_entropy import MaskedSparseCrossEntropy
from keras_nmt.workshop.hardware.cudnn import cudnn_ineligibility

pytestmark = pytest.mark.jax


def test_cudnn_is_avoided_only_for_bfloat16_under_jax():
    assert cudnn_setting("jax", "bfloat16") is False
    assert cudnn_setting("jax", "float32") == "auto"
    assert cudnn_setting("jax", "float16") == "auto"
    assert cudnn_setting("tensorflow", "bfloat16") == "auto"  # TensorFlow unchanged
    keras.mixed_precision.set_global_policy("mixed_bfloat16")
    try:
        lstm = sequence_lstm(4, name="decoder_lstm_0")
    finally:
        keras.mixed_precision.set_global_policy("float32")
    expected = cudnn_setting(keras.backend.backend(), "bfloat16")
    assert lstm.use_cudnn == expected
    assert bool(cudnn_ineligibility(lstm)) == (expected is False)
    assert cudnn_ineligibility(sequence_lstm(4)) == []


def test_step_dropout_masks_are_fresh_inverted_dropout_draws():
    layer = keras.layers.Dropout(0.25, seed=3)
    tokens = np.ones((16, 40), dtype="int32")  # (batch, target_len)
    masks = keras.ops.convert_to_numpy(step_dropout_masks(layer, tokens, 2, 32, training=True))
    assert masks.shape == (40, 2, 16, 32)
    np.testing.assert_allclose(np.unique(masks), [0.0, 1 / 0.75], rtol=1e-6)
    assert abs((masks == 0).mean() - 0.25) < 0.01
    assert (masks[0] != masks[1]).any() and (masks[:, 0] != masks[:, 1]).any()
    assert step_dropout_masks(layer, tokens, 2, 32, training=False) is None
    assert step_dropout_masks(layer, tokens, 0, 32, training=True) is None


@pytest.mark.parametrize(
    "cls, options",
    [
        (LstmSeq2SeqSubclassed, {"num_layers": 2}),
        (LuongSeq2SeqSubclassed, {"num_layers": 2, "input_feeding": True}),
        (BahdanauSeq2SeqSubclassed, {}),
    ],
)
def test_subclassed_twins_build_eagerly_and_train_with_dropout(cls, options):
    # Under JAX, weights made inside the step loop's scan and dropout seeds drawn there failed.
    keras.utils.set_random_seed(0)
    rng = np.random.default_rng(0)
    source = rng.integers(4, 15, (4, 6)).astype("int32")
    decoder = rng.integers(4, 11, (4, 5)).astype("int32")
    decoder[:, 0] = START_ID
    source[1, 4:], decoder[2, 3:] = 0, 0
    batch = {"encoder_tokens": source, "decoder_tokens": decoder}
    targets = np.concatenate([decoder[:, 1:], np.zeros((4, 1), "int32")], axis=1)
    model = cls(15, 11, embedding_dim=6, units=8, dropout=0.5, **options)
    model(batch)  # the first, eager call builds
    model.compile(optimizer="adam", loss=MaskedSparseCrossEntropy())
    model.teacher_forcing_probability.assign(0.5)
    losses = [float(model.train_on_batch(batch, targets)) for _ in range(3)]
    assert np.isfinite(losses).all()
    model.teacher_forcing_probability.assign(1.0)  # only dropout differs between the calls
    first, second = (keras.ops.convert_to_numpy(model(batch, training=True)) for _ in range(2))
    assert not np.allclose(first, second)
    np.testing.assert_allclose(model(batch), model(batch))  # no dropout at inference
