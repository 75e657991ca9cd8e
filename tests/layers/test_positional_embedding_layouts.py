"""The sinusoid table's two layouts and the embedding scale of `PositionalEmbedding`."""

import numpy as np

from keras_nmt.layers.positional_embedding import PositionalEmbedding, _sinusoid_table


def test_halves_layout_is_marians_table():
    """transformers' MarianSinusoidalPositionalEmbedding: sin(pos / 10000^(2i/d)) in column i,
    cos of the same angle in column d/2 + i, positions from 0."""
    d_model, positions = 8, np.arange(5)[:, None]
    angles = positions / np.power(10000.0, 2 * np.arange(d_model // 2) / d_model)
    expected = np.concatenate([np.sin(angles), np.cos(angles)], axis=1)
    np.testing.assert_allclose(_sinusoid_table(5, d_model, "halves"), expected, atol=1e-7)
    interleaved = _sinusoid_table(5, d_model)
    np.testing.assert_array_equal(interleaved[:, 0::2], expected[:, :4].astype("float32"))


def test_unscaled_embedding_adds_the_positions_to_the_rows():
    layer = PositionalEmbedding(10, 4, max_length=8, position_layout="halves", scale=False)
    ids = np.array([[3, 5]])
    out = np.asarray(layer(ids))
    rows = np.asarray(layer.embeddings)[[3, 5]]
    np.testing.assert_allclose(out[0], rows + _sinusoid_table(8, 4, "halves")[:2], atol=1e-6)
    scaled = PositionalEmbedding(10, 4, max_length=8)
    scaled.build((None, None))
    scaled.token_embedding.embeddings.assign(layer.embeddings)
    np.testing.assert_allclose(np.asarray(scaled(ids))[0],
                               rows * 2.0 + _sinusoid_table(8, 4)[:2], atol=1e-6)
