"""PositionalEmbedding: the paper's sinusoids, sqrt(d_model) scaling, masks, offsets, tying."""

import math

import keras
import numpy as np

from keras_nmt.layers.positional_embedding import PositionalEmbedding

VOCAB, D_MODEL, MAX_LENGTH = 20, 16, 32


def paper_encoding(max_length, d_model):
    """PE(pos, 2i) = sin(pos / 10000^(2i/d)), PE(pos, 2i+1) = cos(pos / 10000^(2i/d)), by loops."""
    table = np.zeros((max_length, d_model))
    for pos in range(max_length):
        for i in range(0, d_model, 2):
            table[pos, i] = math.sin(pos / 10000 ** (i / d_model))
            if i + 1 < d_model:
                table[pos, i + 1] = math.cos(pos / 10000 ** (i / d_model))
    return table


def make_layer(**kwargs):
    keras.utils.set_random_seed(0)
    layer = PositionalEmbedding(VOCAB, D_MODEL, max_length=MAX_LENGTH, **kwargs)
    layer.build((None, None))
    return layer


def test_output_is_scaled_embedding_plus_paper_encoding():
    layer = make_layer()
    ids = np.array([[5, 6, 7, 0], [4, 9, 0, 0]], dtype="int32")
    out = keras.ops.convert_to_numpy(layer(ids))  # (2, 4, 16)
    table = keras.ops.convert_to_numpy(layer.embeddings)
    expected = table[ids] * math.sqrt(D_MODEL) + paper_encoding(MAX_LENGTH, D_MODEL)[None, :4]
    np.testing.assert_allclose(out, expected, atol=1e-5)
    # The encoding alone (zero embeddings) is exactly the formula, at every table position.
    layer.token_embedding.embeddings.assign(np.zeros((VOCAB, D_MODEL), "float32"))
    long_ids = np.ones((1, MAX_LENGTH), "int32")
    encoding = keras.ops.convert_to_numpy(layer(long_ids))[0]
    np.testing.assert_allclose(encoding, paper_encoding(MAX_LENGTH, D_MODEL), atol=1e-6)
    assert encoding[0, 0] == 0.0 and encoding[0, 1] == 1.0  # sin(0), cos(0)


def test_odd_width_follows_the_formula():
    layer = PositionalEmbedding(VOCAB, 7, max_length=10)
    layer.build((None, None))
    layer.token_embedding.embeddings.assign(np.zeros((VOCAB, 7), "float32"))
    encoding = keras.ops.convert_to_numpy(layer(np.ones((1, 10), "int32")))[0]
    np.testing.assert_allclose(encoding, paper_encoding(10, 7), atol=1e-6)


def test_mask_follows_mask_zero():
    ids = np.array([[5, 0, 7, 0]], dtype="int32")
    mask = keras.ops.convert_to_numpy(make_layer().compute_mask(ids))
    np.testing.assert_array_equal(mask, [[True, False, True, False]])
    assert make_layer(mask_zero=False).compute_mask(ids) is None


def test_start_index_gives_the_positions_of_a_longer_sequence():
    layer = make_layer()
    ids = np.array([[5, 6, 7, 8, 9], [4, 9, 3, 2, 1]], dtype="int32")
    full = keras.ops.convert_to_numpy(layer(ids))
    for t in range(5):
        step = keras.ops.convert_to_numpy(layer(ids[:, t : t + 1], start_index=np.array([t, t])))
        np.testing.assert_allclose(step[:, 0], full[:, t], atol=1e-6)
    # Rows at different positions (a scalar offset works too).
    rows = keras.ops.convert_to_numpy(layer(ids[:, 2:3], start_index=np.array([2, 4])))
    np.testing.assert_allclose(rows[0, 0], full[0, 2], atol=1e-6)
    delta = layer_embedding_delta(layer, 3, 1)  # row 1 has token 3 at position 2, 1 at 4
    np.testing.assert_allclose(rows[1, 0] - full[1, 4], delta, atol=1e-5)
    scalar = keras.ops.convert_to_numpy(layer(ids[:, 3:], start_index=3))
    np.testing.assert_allclose(scalar, full[:, 3:], atol=1e-6)


def layer_embedding_delta(layer, id_a, id_b):
    """sqrt(d) * (E[id_a] - E[id_b]): what changes when a token changes at a fixed position."""
    table = keras.ops.convert_to_numpy(layer.embeddings)
    return math.sqrt(D_MODEL) * (table[id_a] - table[id_b])


def test_reverse_projects_onto_the_embedding_matrix():
    layer = make_layer()
    h = np.random.default_rng(0).normal(size=(2, 3, D_MODEL)).astype("float32")
    logits = keras.ops.convert_to_numpy(layer(h, reverse=True))
    table = keras.ops.convert_to_numpy(layer.embeddings)
    np.testing.assert_allclose(logits, h @ table.T, atol=1e-5)
    assert logits.shape == (2, 3, VOCAB)


def test_config_round_trip():
    layer = make_layer(mask_zero=False)
    config = layer.get_config()
    assert config["vocab_size"] == VOCAB and config["d_model"] == D_MODEL
    assert config["max_length"] == MAX_LENGTH and config["mask_zero"] is False
    clone = PositionalEmbedding.from_config(config)
    assert clone.get_config() == config
