"""Attention heatmaps give valid PNG bytes (the caller writes the file)."""

import matplotlib.image
import numpy as np
import pytest
from matplotlib.figure import Figure

from keras_nmt.workshop.plots import plot_attention, plot_attention_grid, png

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
SOURCE = "el gato negro se sienta aquí .".split()  # 7 tokens
TARGET = "the black cat sits".split() + [b"."]  # 5 tokens; bytes as tf.string gives them


def _weights(rows=5, cols=7, seed=0):
    return np.random.default_rng(seed).dirichlet(np.ones(cols), size=rows).astype("float32")


def _assert_png(path, fig):
    path.write_bytes(png(fig))
    assert path.read_bytes()[:8] == PNG_MAGIC
    image = matplotlib.image.imread(path)
    assert image.ndim == 3 and image.shape[2] in (3, 4)
    assert image.shape[0] > 100 and image.shape[1] > 100
    return image


def test_plot_attention_gives_a_png(tmp_path):
    fig = plot_attention(_weights(), SOURCE, TARGET, title="5x7")
    assert isinstance(fig, Figure)
    _assert_png(tmp_path / "attention.png", fig)
    heatmap = fig.axes[0]
    # Source tokens label both the bottom and the top of the heatmap.
    assert [t.get_text() for t in heatmap.get_xticklabels()] == SOURCE + SOURCE
    assert [t.get_text() for t in heatmap.get_yticklabels()] == ["the", "black", "cat", "sits", "."]
    assert len(fig.axes) == 2  # heatmap + colorbar


def test_plot_attention_crops_padded_weights_and_rejects_small_ones():
    fig = plot_attention(_weights(rows=9, cols=11), SOURCE, TARGET)
    assert fig.axes[0].get_images()[0].get_array().shape == (5, 7)
    with pytest.raises(ValueError, match="smaller"):
        plot_attention(_weights(rows=4), SOURCE, TARGET)


def test_plot_attention_large_alignment_is_sized_for_reading(tmp_path):
    tokens = [f"tok{i}" for i in range(40)]
    fig = plot_attention(_weights(40, 40), tokens, tokens)
    width, height = fig.get_size_inches()
    assert width >= 10 and height >= 10
    _assert_png(tmp_path / "big.png", fig)


def test_plot_attention_grid_gives_a_png(tmp_path):
    panels = [(_weights(seed=0), SOURCE, TARGET, "luong"),
              (_weights(seed=1), SOURCE, TARGET, "bahdanau")]
    fig = plot_attention_grid(panels, title="comparison")
    image = _assert_png(tmp_path / "grid.png", fig)
    assert image.shape[1] > image.shape[0]  # side by side
    assert len(fig.axes) == 3  # two heatmaps + one shared colorbar
    with pytest.raises(ValueError):
        plot_attention_grid([])
