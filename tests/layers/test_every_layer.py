"""`run_layer_test` on every layer of `keras_nmt.layers`, and a check that none is left out.

A new layer file fails `test_every_layer_has_a_case` until it gets a case in `CASES`.
"""

import importlib
import inspect
import pkgutil

import keras
import numpy as np
import pytest

import keras_nmt.layers
from keras_nmt.layers import BahdanauAttention
from tests.layers.layer_test_case import run_layer_test

RNG = np.random.default_rng(0)
BATCH, SRC, TGT = 2, 4, 3


def floats(*shape):
    return RNG.normal(size=shape).astype("float32")


IDS = np.array([[5, 6, 7, 0], [8, 0, 0, 0]], dtype="int32")  # (BATCH, SRC), right-padded
SOURCE_MASK = IDS != 0
TARGET_MASK = np.array([[True, True, True], [True, True, False]])
MEMORY = floats(BATCH, SRC, 6)
ATTENTION_INPUTS = {"query": floats(BATCH, TGT, 6), "memory": MEMORY, "memory_mask": SOURCE_MASK}
STEP_ATTENTION_INPUTS = {"query": floats(BATCH, 5), "memory": MEMORY, "memory_mask": SOURCE_MASK}
BLOCK = dict(d_model=8, num_heads=2, ff_dim=16, dropout=0.1)

# Layer class name -> cases (id, run_layer_test keyword arguments).
CASES = {
    "BahdanauAttention": [
        (
            "sequence",
            dict(
                init_kwargs=dict(units=5),
                input_data=ATTENTION_INPUTS,
                expected_output_shape=((BATCH, TGT, 6), (BATCH, TGT, SRC)),
                expected_num_trainable_weights=3,  # W, U, v
            ),
        ),
        (
            "step-normalized",
            dict(
                init_kwargs=dict(units=5, normalize=True),
                input_data=STEP_ATTENTION_INPUTS,
                expected_output_shape=((BATCH, 6), (BATCH, SRC)),
                expected_num_trainable_weights=5,  # W, U, v, g, b
                masking=(None, None),
            ),
        ),
    ],
    "BahdanauDecoderRNN": [
        (
            "sequence",
            dict(
                init_kwargs=dict(
                    cell=keras.layers.LSTMCell(7, name="decoder_lstm_0"),
                    attention=BahdanauAttention(5, name="attention"),
                ),
                input_data={
                    "embedded_targets": floats(BATCH, TGT, 3),
                    "memory": MEMORY,
                    "memory_mask": SOURCE_MASK,
                    "initial_states": [floats(BATCH, 7), floats(BATCH, 7)],
                },
                expected_output_shape=(
                    (BATCH, TGT, 7),
                    (BATCH, TGT, 6),
                    (BATCH, TGT, SRC),
                    (BATCH, 7),
                    (BATCH, 7),
                ),
                expected_num_trainable_weights=6,  # LSTM kernel, recurrent kernel, bias; W, U, v
                masking=(TARGET_MASK, None),
            ),
        )
    ],
    "MultiHeadAttention": [
        (
            "masked",
            dict(
                init_kwargs=dict(num_heads=2, key_dim=4),
                input_data={
                    "query": floats(BATCH, TGT, 8),
                    "value": floats(BATCH, SRC, 8),
                    "attention_mask": SOURCE_MASK[:, None, :],
                },
                call_kwargs=dict(return_attention_scores=True),
                expected_output_shape=((BATCH, TGT, 8), (BATCH, 2, TGT, SRC)),
                expected_num_trainable_weights=8,  # query, key, value, output: kernel + bias
            ),
        ),
        (
            "updated-cache",
            dict(
                init_kwargs=dict(num_heads=2, key_dim=4),
                input_data={
                    "query": floats(BATCH, 1, 8),
                    "value": floats(BATCH, 1, 8),
                    "key_cache": floats(BATCH, 2, 5, 4),  # (batch, heads, positions, key_dim)
                    "value_cache": floats(BATCH, 2, 5, 4),
                    "cache_update_index": np.array([0, 3], dtype="int32"),
                },
                expected_output_shape=((BATCH, 1, 8), (BATCH, 2, 5, 4), (BATCH, 2, 5, 4)),
                expected_num_trainable_weights=8,
            ),
        ),
    ],
    "ConvDecoderBlock": [
        (
            "sequence",
            dict(
                init_kwargs=dict(channels=6, kernel_size=3, embedding_dim=4, dropout=0.1),
                input_data={
                    "inputs": floats(BATCH, TGT, 6),
                    "target_embedding": floats(BATCH, TGT, 4),
                    "keys": floats(BATCH, SRC, 4),
                    "values": floats(BATCH, SRC, 4),
                    "memory_mask": SOURCE_MASK,
                },
                expected_output_shape=((BATCH, TGT, 6), (BATCH, TGT, SRC)),
                # convolution v, g, b; attention in and out projections v, g, b each
                expected_num_trainable_weights=9,
            ),
        )
    ],
    "ConvEncoderBlock": [
        (
            "masked",
            dict(
                init_kwargs=dict(channels=6, kernel_size=3, dropout=0.1),
                input_data={"inputs": floats(BATCH, SRC, 6), "mask": SOURCE_MASK},
                expected_output_shape=(BATCH, SRC, 6),
                expected_num_trainable_weights=3,  # convolution v, g, b
                masking=(SOURCE_MASK, SOURCE_MASK),
            ),
        )
    ],
    "ConvS2SAttention": [
        (
            "sequence",
            dict(
                init_kwargs=dict(embedding_dim=4),
                input_data={
                    "inputs": floats(BATCH, TGT, 6),
                    "target_embedding": floats(BATCH, TGT, 4),
                    "keys": floats(BATCH, SRC, 4),
                    "values": floats(BATCH, SRC, 4),
                    "memory_mask": SOURCE_MASK,
                },
                expected_output_shape=((BATCH, TGT, 6), (BATCH, TGT, SRC)),
                expected_num_trainable_weights=6,  # in and out projections: v, g, b each
            ),
        )
    ],
    "GatedConvolution": [
        (
            f"causal={causal}",
            dict(
                init_kwargs=dict(channels=5, kernel_size=3, causal=causal, input_dropout=0.1),
                input_data={"inputs": floats(BATCH, SRC, 6), "mask": SOURCE_MASK},
                expected_output_shape=(BATCH, SRC, 5),
                expected_num_trainable_weights=3,  # v, g, b
                masking=(SOURCE_MASK, SOURCE_MASK),
            ),
        )
        for causal in (False, True)
    ],
    "LearnedPositionalEmbedding": [
        (
            "ids",
            dict(
                init_kwargs=dict(vocab_size=10, embedding_dim=8, max_length=6),
                input_data={"inputs": IDS},
                expected_output_shape=(BATCH, SRC, 8),
                expected_num_trainable_weights=2,  # token and position tables
                masking=(None, SOURCE_MASK),
            ),
        ),
        (
            "step",
            dict(
                init_kwargs=dict(vocab_size=10, embedding_dim=8, max_length=6, mask_zero=False),
                input_data={"inputs": IDS[:, :1], "start_index": np.array([2, 5], "int32")},
                expected_output_shape=(BATCH, 1, 8),
                expected_num_trainable_weights=2,
                masking=(None, None),
            ),
        ),
    ],
    "LogitsBias": [
        (
            "logits",
            dict(
                init_kwargs=dict(vocab_size=7),
                input_data={"logits": floats(BATCH, TGT, 7)},
                expected_output_shape=(BATCH, TGT, 7),
                expected_num_trainable_weights=1,
            ),
        ),
    ],
    "LuongAttention": [
        (
            f"{score}-scale={scale}",
            dict(
                init_kwargs=dict(score=score, scale=scale),
                input_data=ATTENTION_INPUTS,
                expected_output_shape=((BATCH, TGT, 6), (BATCH, TGT, SRC)),
                expected_num_trainable_weights=weights,
            ),
        )
        for score, scale, weights in [("dot", True, 1), ("general", False, 1), ("concat", True, 4)]
    ]
    + [
        (
            "dot-step",
            dict(
                init_kwargs=dict(score="dot"),
                input_data={**STEP_ATTENTION_INPUTS, "query": floats(BATCH, 6)},
                expected_output_shape=((BATCH, 6), (BATCH, SRC)),
                expected_num_trainable_weights=0,
                masking=(None, None),
            ),
        )
    ],
    "PositionalEmbedding": [
        (
            "ids",
            dict(
                init_kwargs=dict(vocab_size=10, d_model=8, max_length=6),
                input_data={"inputs": IDS},
                expected_output_shape=(BATCH, SRC, 8),
                expected_num_trainable_weights=1,
                masking=(None, SOURCE_MASK),
            ),
        ),
        (
            "step",
            dict(
                init_kwargs=dict(vocab_size=10, d_model=8, max_length=6, mask_zero=False),
                input_data={"inputs": IDS[:, :1], "start_index": np.array([2, 5], "int32")},
                expected_output_shape=(BATCH, 1, 8),
                expected_num_trainable_weights=1,
                masking=(None, None),
            ),
        ),
        (
            "tied-output",
            dict(
                init_kwargs=dict(vocab_size=10, d_model=8, max_length=6),
                input_data={"inputs": floats(BATCH, TGT, 8)},
                call_kwargs=dict(reverse=True),
                expected_output_shape=(BATCH, TGT, 10),
                expected_num_trainable_weights=1,
            ),
        ),
    ],
    "ReversePaddedSequence": [
        (
            "ids",
            dict(
                init_kwargs={},
                input_data={"tokens": IDS},
                expected_output_shape=(BATCH, SRC),
                expected_num_trainable_weights=0,
            ),
        )
    ],
    "TransformerDecoderBlock": [
        (
            f"sequence-pre_norm={pre_norm}",
            dict(
                init_kwargs=dict(**BLOCK, pre_norm=pre_norm),
                input_data={
                    "inputs": floats(BATCH, TGT, 8),
                    "memory": floats(BATCH, SRC, 8),
                    "inputs_mask": TARGET_MASK,
                    "memory_mask": SOURCE_MASK,
                },
                expected_output_shape=(BATCH, TGT, 8),
                # two attentions (4 kernels + 4 biases each), 2 dense (kernel + bias), 3 norms
                expected_num_trainable_weights=26,
                masking=(TARGET_MASK, TARGET_MASK),
            ),
        )
        for pre_norm in (False, True)
    ],
    "TransformerEncoderBlock": [
        (
            f"pre_norm={pre_norm}",
            dict(
                init_kwargs=dict(**BLOCK, pre_norm=pre_norm),
                input_data={"inputs": floats(BATCH, SRC, 8), "mask": SOURCE_MASK},
                expected_output_shape=(BATCH, SRC, 8),
                expected_num_trainable_weights=16,  # attention 8, 2 dense 4, 2 norms 4
                masking=(SOURCE_MASK, SOURCE_MASK),
            ),
        )
        for pre_norm in (False, True)
    ],
    "WeightNormDense": [
        (
            "sequence",
            dict(
                init_kwargs=dict(units=5, input_dropout=0.2),
                input_data={"inputs": floats(BATCH, TGT, 6)},
                expected_output_shape=(BATCH, TGT, 5),
                expected_num_trainable_weights=3,  # v, g, b
            ),
        )
    ],
}


def layer_classes():
    """Every `keras.layers.Layer` subclass defined in a module of `keras_nmt/layers`."""
    classes = {}
    for module_info in pkgutil.iter_modules(keras_nmt.layers.__path__):
        module = importlib.import_module(f"keras_nmt.layers.{module_info.name}")
        for name, value in inspect.getmembers(module, inspect.isclass):
            if issubclass(value, keras.layers.Layer) and value.__module__ == module.__name__:
                classes[name] = value
    return classes


# Base classes, tested through the layers that subclass them.
BASES = {"SourceAttention"}


def test_every_layer_has_a_case():
    classes = layer_classes()
    assert set(CASES) == set(classes) - BASES
    assert set(keras_nmt.layers.__all__) == set(classes) - BASES


@pytest.mark.parametrize(
    "layer_cls, options",
    [
        pytest.param(getattr(keras_nmt.layers, name), options, id=f"{name}-{case}")
        for name, cases in CASES.items()
        for case, options in cases
    ],
)
def test_layer(layer_cls, options):
    run_layer_test(layer_cls, **options)
