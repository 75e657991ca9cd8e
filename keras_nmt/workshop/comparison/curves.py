"""Plots of a comparison: learning curves against wall time, attention side by side.

Same approach as `keras_nmt.workshop.plots`: `matplotlib.figure.Figure` with the Agg canvas, no
``pyplot``, so nothing needs a display and no global state changes.
"""

from pathlib import Path

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from keras_nmt.workshop.output_file import output_path, write_bytes
from keras_nmt.workshop.plots import plot_attention_grid, png


def plot_curves(curves, key, path, ylabel, title=None, time_unit="s", budget=None, styles=None):
    """One line per configuration: ``key`` (e.g. ``val_loss``) against cumulative wall time.

    Args:
        curves: ``{name: {"seconds": [...], key: [...]}}``, one point per epoch, times in
            ``time_unit``; a configuration without the key (or with no epochs) is left out.
        key: which series to plot.
        path: the PNG to write.
        ylabel: the y axis label.
        title: optional title.
        time_unit: the unit of the times, for the axis label (``"s"``, ``"min"``).
        budget: optional wall-time budget in ``time_unit``, drawn as a dashed vertical line
            (training stops at the end of the batch during which it runs out, then validates
            that cut epoch: the points past it show by how much each configuration overran).
        styles: optional ``{name: keyword arguments of Axes.plot}`` (color, linestyle, ...)
            replacing the default style of those lines.

    Returns:
        The figure, or ``None`` when no configuration has a point to draw (nothing is written).
    """
    series = {
        name: (curve["seconds"], curve[key])
        for name, curve in curves.items()
        if curve.get(key) and len(curve[key]) == len(curve.get("seconds", ()))
    }
    if not series:
        return None
    fig = Figure(figsize=(8.5, 4.5), layout="constrained")
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    for name, (seconds, values) in series.items():
        style = {"marker": "o", "markersize": 3, **(styles or {}).get(name, {})}
        ax.plot(seconds, values, label=name, **style)
    if budget is not None:
        ax.axvline(budget, color="gray", linestyle="--", linewidth=1, label="budget")
    ax.set_xlabel(f"wall time ({time_unit}, training + validation)")
    ax.set_ylabel(ylabel)
    ax.grid(alpha=0.3)
    # Beside the axes: inside, the legend of a many-line comparison hides the last points.
    fig.legend(loc="outside right upper", fontsize=8)
    if title:
        ax.set_title(title)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with output_path(path) as temporary:
        fig.savefig(temporary, format="png", dpi=100)
    return fig


def plot_attention_comparison(attention, path, title=None):
    """The same sentence's attention under several models, side by side.

    Args:
        attention: ``{name: {"weights": (target_len, source_len), "source_tokens": [...],
            "target_tokens": [...]}}`` for one source sentence.
        path: the PNG to write.
        title: optional title (e.g. the source sentence).

    Returns:
        The figure, or ``None`` when ``attention`` is empty.
    """
    panels = [
        (entry["weights"], entry["source_tokens"], entry["target_tokens"], name)
        for name, entry in attention.items()
        if entry["source_tokens"] and entry["target_tokens"]
    ]
    if not panels:
        return None
    fig = plot_attention_grid(panels, title=title)
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    write_bytes(path, png(fig))
    return fig
