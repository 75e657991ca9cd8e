"""Every model twin and the fake models keep the inference contract (`DecodingModel`).

Not only by `isinstance` (which sees only that the members exist): each model encodes a padded
batch and takes one decoding step, and the shapes, dtypes and batch-major layout that decoding
relies on are checked on the results.
"""

import keras
import numpy as np
import pytest
from keras import ops

from keras_nmt.decoding.decoding_model import DecodingModel
from keras_nmt.decoding.loop import decode
from keras_nmt.models.registry import APIS, MODEL_NAMES, build_model
from keras_nmt.special_ids import START_ID
from keras_nmt.workshop.configurations import model_options
from tests.decoding.fake_models import VOCAB, FakeModel, random_table

SOURCE_VOCAB, TARGET_VOCAB = 13, 11
# Right-padded sources of different lengths; PERMUTATION reorders the batch.
SOURCE = np.array([[4, 5, 6, 7, 8, 9], [5, 6, 0, 0, 0, 0], [7, 8, 9, 10, 0, 0]], dtype="int32")
PERMUTATION = np.array([2, 0, 1], dtype="int32")
MAX_LENGTH = 5


def tiny_model(name, api):
    keras.utils.set_random_seed(0)
    model = build_model(name, api, SOURCE_VOCAB, TARGET_VOCAB, model_options(name, "tiny"))
    decoder_tokens = np.full((3, 4), START_ID, dtype="int32")
    model({"encoder_tokens": SOURCE, "decoder_tokens": decoder_tokens})  # builds the weights
    return model


def contract_models():
    params = [
        pytest.param(lambda n=name, a=api: (tiny_model(n, a), TARGET_VOCAB), id=f"{name}-{api}")
        for name in MODEL_NAMES
        for api in APIS
    ]
    for has_attention in (False, True):
        params.append(
            pytest.param(
                lambda h=has_attention: (FakeModel(random_table(0), has_attention=h), VOCAB),
                id=f"fake-attention={has_attention}",
            )
        )
    return params


def numpy_leaves(structure):
    return [ops.convert_to_numpy(x) for x in keras.tree.flatten(structure) if x is not None]


def take_rows(structure, rows):
    return keras.tree.map_structure(lambda x: ops.take(x, rows, axis=0), structure)


def test_every_registered_model_is_checked():
    ids = {param.id for param in contract_models()}
    assert {f"{name}-{api}" for name in MODEL_NAMES for api in APIS} <= ids


@pytest.mark.parametrize("make", contract_models())
def test_model_keeps_the_inference_contract(make):
    model, vocab = make()
    assert isinstance(model, DecodingModel)
    assert isinstance(model.has_attention, bool)
    batch, src_len = SOURCE.shape

    memory = model.encode(ops.convert_to_tensor(SOURCE))
    assert isinstance(memory, dict)
    mask = ops.convert_to_numpy(memory["source_mask"])
    assert mask.dtype == bool
    np.testing.assert_array_equal(mask, SOURCE != 0)
    for leaf in numpy_leaves(memory):
        assert leaf.shape[0] == batch

    state = model.initial_state(memory, MAX_LENGTH)
    for leaf in numpy_leaves(state):
        assert leaf.shape[0] == batch

    token = ops.full((batch,), START_ID, dtype="int32")
    logits, new_state, attention = model.decode_step(token, state, memory)
    assert tuple(logits.shape) == (batch, vocab)
    assert ops.convert_to_numpy(logits).dtype == np.float32
    # The state keeps its structure, shapes and dtypes: a while_loop can carry it.
    keras.tree.assert_same_structure(new_state, state)
    for old, new in zip(numpy_leaves(state), numpy_leaves(new_state), strict=True):
        assert (new.shape, new.dtype) == (old.shape, old.dtype)
    if model.has_attention:
        weights = ops.convert_to_numpy(attention)
        assert weights.shape == (batch, src_len)
        np.testing.assert_allclose(weights.sum(axis=1), 1.0, rtol=1e-5)
        assert np.all(weights[~mask] == 0.0)
    else:
        assert attention is None

    # Batch-major: reordering the sentences reorders every memory and state leaf, the logits
    # and the attention alike (what beam search does with `take(x, origin, axis=0)`).
    permuted_memory = model.encode(ops.convert_to_tensor(SOURCE[PERMUTATION]))
    for got, want in zip(
        numpy_leaves(permuted_memory), numpy_leaves(take_rows(memory, PERMUTATION)), strict=True
    ):
        np.testing.assert_allclose(got, want, atol=1e-5)
    step = model.decode_step(
        ops.take(token, PERMUTATION, axis=0), take_rows(state, PERMUTATION), permuted_memory
    )
    expected = (logits, new_state, attention)
    for got, want in zip(numpy_leaves(step), numpy_leaves(expected), strict=True):
        np.testing.assert_allclose(got, want[PERMUTATION], atol=1e-5)


def test_decode_rejects_an_object_without_the_contract():
    class EncoderOnly:
        has_attention = False

        def encode(self, encoder_tokens):
            return {"source_mask": ops.not_equal(encoder_tokens, 0)}

    assert not isinstance(EncoderOnly(), DecodingModel)
    with pytest.raises(TypeError, match="inference contract"):
        decode(EncoderOnly(), SOURCE)
