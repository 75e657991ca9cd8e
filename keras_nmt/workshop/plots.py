"""Attention heatmaps: one alignment, or several side by side for comparison.

Figures are made with `matplotlib.figure.Figure` and drawn with the Agg canvas: no `pyplot`, so
nothing needs a display, the global backend is left alone, and figures are freed with their last
reference instead of piling up in pyplot's registry. `png` gives a figure's PNG bytes; the file
is the caller's to write (the command line writes it as every output it writes).

Example:
    >>> weights = np.random.dirichlet(np.ones(7), size=5)       # (target_len, source_len)
    >>> fig = plot_attention(weights, "el gato negro se sienta .".split(),
    ...                      "the black cat sits .".split())
    >>> Path("attention.png").write_bytes(png(fig))
"""

import io
from collections.abc import Sequence

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

# Inches per token on each axis, and the smallest sizes, so that 40x40 alignments stay legible.
_INCH_PER_TOKEN = 0.28
_MIN_WIDTH, _MIN_HEIGHT = 4.0, 3.0
_DPI = 100


def _as_text(tokens) -> list[str]:
    """Token strings; accepts `bytes` (what `tf.string` tensors give through NumPy)."""
    return [t.decode("utf-8", "replace") if isinstance(t, bytes) else str(t) for t in tokens]


def _as_weights(weights, source_tokens, target_tokens) -> np.ndarray:
    """Float `(len(target_tokens), len(source_tokens))` array.

    Larger arrays are cropped, since decoders return attention for their whole padded length.
    """
    array = np.asarray(weights, dtype=np.float32)
    if array.ndim != 2:
        raise ValueError(f"`weights` must be (target_len, source_len); got shape {array.shape}.")
    rows, cols = len(target_tokens), len(source_tokens)
    if array.shape[0] < rows or array.shape[1] < cols:
        raise ValueError(
            f"`weights` of shape {array.shape} is smaller than the {rows} target x {cols} "
            "source tokens."
        )
    return array[:rows, :cols]


def _font_size(count: int) -> float:
    return 10.0 if count <= 20 else 8.0 if count <= 40 else 6.0


def _draw(ax, weights, source_tokens, target_tokens, title=None):
    """Draws one heatmap on `ax` and returns the image (for the colorbar)."""
    source_tokens, target_tokens = _as_text(source_tokens), _as_text(target_tokens)
    weights = _as_weights(weights, source_tokens, target_tokens)
    # Attention weights are probabilities: a fixed 0..1 range keeps panels comparable.
    image = ax.imshow(weights, cmap="viridis", vmin=0.0, vmax=1.0, aspect="auto",
                      interpolation="nearest")
    ax.set_xticks(range(len(source_tokens)))
    ax.set_xticklabels(source_tokens, rotation=90, fontsize=_font_size(len(source_tokens)))
    ax.set_yticks(range(len(target_tokens)))
    ax.set_yticklabels(target_tokens, fontsize=_font_size(len(target_tokens)))
    # Source labels on the top as well as the bottom: long alignments are read from either end.
    ax.tick_params(axis="x", top=True, labeltop=True, bottom=True, labelbottom=True)
    ax.set_xlabel("source")
    ax.set_ylabel("output")
    if title:
        ax.set_title(title, pad=12)
    return image


def png(fig: Figure) -> bytes:
    """The figure as PNG bytes (cropped to what is drawn)."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=_DPI, bbox_inches="tight")
    return buffer.getvalue()


def plot_attention(
    weights,
    source_tokens: Sequence,
    target_tokens: Sequence,
    title: str | None = None,
) -> Figure:
    """Heatmap of one attention alignment (Bahdanau et al. 2014, fig. 3 style).

    Args:
        weights: `(target_len, source_len)` array-like of attention weights (row `i` is the
            distribution used to produce `target_tokens[i]`); cropped to the token counts when
            larger (padded decoder output).
        source_tokens: the `source_len` source tokens (x axis, top and bottom, rotated).
        target_tokens: the produced tokens (y axis).
        title: optional title.

    Returns:
        The `matplotlib.figure.Figure` (Agg canvas).

    Example:
        >>> fig = plot_attention(np.eye(3), ["a", "b", "c"], ["x", "y", "z"], title="eye")
    """
    source_tokens, target_tokens = list(source_tokens), list(target_tokens)
    width = max(_MIN_WIDTH, _INCH_PER_TOKEN * len(source_tokens) + 2.0)
    height = max(_MIN_HEIGHT, _INCH_PER_TOKEN * len(target_tokens) + 1.5)
    fig = Figure(figsize=(width, height))
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    image = _draw(ax, weights, source_tokens, target_tokens, title)
    fig.colorbar(image, ax=ax, fraction=0.046, pad=0.04, label="attention weight")
    return fig


def plot_attention_grid(panels: Sequence[tuple], title: str | None = None) -> Figure:
    """Several attention heatmaps side by side (e.g. the same sentence under different models).

    Args:
        panels: a sequence of `(weights, source_tokens, target_tokens, title)` tuples, each as in
            `plot_attention` (`title` may be `None`).
        title: optional title over the whole figure.

    Returns:
        The `matplotlib.figure.Figure`, one column per panel and one shared 0..1 colorbar.

    Example:
        >>> fig = plot_attention_grid([(w_luong, src, out_luong, "luong"),
        ...                            (w_bahdanau, src, out_bahdanau, "bahdanau")])
    """
    panels = [tuple(panel) for panel in panels]
    if not panels:
        raise ValueError("`panels` is empty.")
    for panel in panels:
        if len(panel) != 4:
            raise ValueError("Each panel must be (weights, source_tokens, target_tokens, title).")
    max_source = max(len(panel[1]) for panel in panels)
    max_target = max(len(panel[2]) for panel in panels)
    panel_width = max(_MIN_WIDTH - 1.0, _INCH_PER_TOKEN * max_source + 1.5)
    # + room for the source labels above and below each panel and the titles.
    height = max(_MIN_HEIGHT + 0.5, _INCH_PER_TOKEN * max_target + 3.0)
    fig = Figure(figsize=(panel_width * len(panels) + 1.0, height), layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(1, len(panels), squeeze=False)[0]
    image = None
    for ax, (weights, source_tokens, target_tokens, panel_title) in zip(axes, panels, strict=True):
        image = _draw(ax, weights, list(source_tokens), list(target_tokens), panel_title)
    fig.colorbar(image, ax=list(axes), fraction=0.046 / len(panels), pad=0.02,
                 label="attention weight")
    if title:
        fig.suptitle(title)
    return fig
