"""Attention heatmaps are written as valid PNG files."""

import matplotlib.image
import numpy as np
import pytest
from matplotlib.figure import Figure

from keras_nmt.workshop.plots import plot_attention, plot_attention_grid

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
SOURCE = "el gato negro se sienta aquí .".split()  # 7 tokens
TARGET = "the black cat sits".split() + [b"."]  # 5 tokens; bytes as tf.string gives them


def _weights(rows=5, cols=7, seed=0):
    return np.random.default_rng(seed).dirichlet(np.ones(cols), size=rows).astype("float32")


def _assert_png(path):
    assert path.read_bytes()[:8] == PNG_MAGIC
    image = matplotlib.image.imread(path)
    assert image.ndim == 3 and image.shape[2] in (3, 4)
    assert image.shape[0] > 100 and image.shape[1] > 100
    return image


def test_plot_attention_writes_png(tmp_path):
    path = tmp_path / "plots" / "attention.png"
    fig = plot_attention(_weights(), SOURCE, TARGET, path=path, title="5x7")
    assert isinstance(fig, Figure)
    _assert_png(path)
    heatmap = fig.axes[0]
    # Source tokens label both the bottom and the top of the heatmap.
    assert [t.get_text() for t in heatmap.get_xticklabels()] == SOURCE + SOURCE
    assert [t.get_text() for t in heatmap.get_yticklabels()] == ["the", "black", "cat", "sits", "."]
    assert len(fig.axes) == 2  # heatmap + colorbar


def test_plot_attention_crops_padded_weights_and_rejects_small_ones():
    fig = plot_attention(_weights(rows=9, cols=11), SOURCE, TARGET)  # no path: nothing written
    assert fig.axes[0].get_images()[0].get_array().shape == (5, 7)
    with pytest.raises(ValueError, match="smaller"):
        plot_attention(_weights(rows=4), SOURCE, TARGET)


def test_plot_attention_large_alignment_is_sized_for_reading(tmp_path):
    tokens = [f"tok{i}" for i in range(40)]
    fig = plot_attention(_weights(40, 40), tokens, tokens, path=tmp_path / "big.png")
    width, height = fig.get_size_inches()
    assert width >= 10 and height >= 10
    _assert_png(tmp_path / "big.png")


def test_plot_attention_grid_writes_png(tmp_path):
    path = tmp_path / "grid.png"
    panels = [(_weights(seed=0), SOURCE, TARGET, "luong"),
              (_weights(seed=1), SOURCE, TARGET, "bahdanau")]
    fig = plot_attention_grid(panels, path, title="comparison")
    image = _assert_png(path)
    assert image.shape[1] > image.shape[0]  # side by side
    assert len(fig.axes) == 3  # two heatmaps + one shared colorbar
    with pytest.raises(ValueError):
        plot_attention_grid([], path)
