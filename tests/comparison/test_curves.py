import numpy as np
from matplotlib.image import imread

from keras_nmt.workshop.comparison.curves import plot_attention_comparison, plot_curves


def test_plot_curves_writes_one_line_per_configuration(tmp_path):
    curves = {
        "a": {"seconds": [1.0, 2.0, 3.0], "val_loss": [3.0, 2.0, 1.5]},
        "b": {"seconds": [2.0, 4.0], "val_loss": [2.5, 1.0]},
        "no-epochs": {"seconds": [], "val_loss": []},
    }
    fig = plot_curves(curves, "val_loss", tmp_path / "loss.png", "validation loss")
    assert len(fig.axes[0].lines) == 2
    assert imread(tmp_path / "loss.png").shape[2] == 4
    # The legend names the lines and sits right of the axes, hiding none of their points.
    (legend,) = fig.legends
    assert [text.get_text() for text in legend.get_texts()] == ["a", "b"]
    renderer = fig.canvas.get_renderer()
    assert legend.get_window_extent(renderer).x0 >= fig.axes[0].get_window_extent(renderer).x1
    assert plot_curves(curves, "val_bleu", tmp_path / "bleu.png", "BLEU") is None
    assert not (tmp_path / "bleu.png").exists()
    # A budget is one more, dashed, vertical line.
    fig = plot_curves(curves, "val_loss", tmp_path / "loss.png", "validation loss", budget=2.5)
    budget = fig.axes[0].lines[-1]
    assert (list(budget.get_xdata()), budget.get_linestyle()) == ([2.5, 2.5], "--")
    assert [text.get_text() for text in fig.legends[0].get_texts()] == ["a", "b", "budget"]


def test_plot_attention_comparison_one_panel_per_model(tmp_path):
    entry = {"weights": np.eye(3).tolist(), "source_tokens": list("abc"),
             "target_tokens": list("xy") + ["</s>"]}
    fig = plot_attention_comparison({"luong": entry, "bahdanau": entry}, tmp_path / "a.png")
    assert len([ax for ax in fig.axes if ax.get_title()]) == 2
    assert (tmp_path / "a.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert plot_attention_comparison({}, tmp_path / "b.png") is None
