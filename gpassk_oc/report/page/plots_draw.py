"""Drawing the report's figures (matplotlib, Agg backend, imported lazily).

Each figure is built and laid out once (constrained layout, then frozen) and then written
both as PNG and as SVG from that one figure: the ``--plots`` files and the page's inline
SVG (:func:`~gpassk_oc.report.page.plots.figure_svgs`) share the drawing, which
:func:`~gpassk_oc.report.page.plots.drawn_figures` keeps on the report. The SVG's element ids are
salted with the figure's stem, so they are unique across the figures of a page and the same
on every run.

:func:`draw_figures` takes only data (the figures' specs and the models' names), so a worker
process can draw while the report goes on (:mod:`gpassk_oc.worker_pool`): this module
imports nothing of the report, and a worker starts quickly.
"""

from __future__ import annotations

import io
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

Curve = dict[str, Any]
#: stem, curves, title, x label, y label, steps, labels of the rows left out (top N)
FigureSpec = tuple[str, list[Curve], str, str, str, bool, list[str]]
#: resolution of the PNG files
PNG_DPI = 150


@dataclass
class Drawn:
    """One figure, drawn: its file stem, plain title, curves, SVG file text (with the XML
    prolog), PNG bytes (None when not asked for) and the rows or models left out."""

    stem: str
    title: str
    curves: list[Curve]
    svg: str
    png: bytes | None
    rest: list[str]

    def data_json(self) -> str:
        """The plotted data as the figure's ``.json`` text."""
        return json.dumps(self.curves, indent=1, ensure_ascii=False) + "\n"

    def inline_svg(self) -> str:
        """The SVG for an HTML page: no XML prolog or DOCTYPE."""
        return self.svg[self.svg.index("<svg") :]


def plain_title(title: str) -> str:
    """The first line of a figure title without its TeX markup."""
    return title.split("\n")[0].replace("$_\\tau$", "τ").replace("$_{1.0}$", "₁.₀")


def _band(ax: Any, x: Any, lo: Any, hi: Any, color: Any, alpha: float, steps: bool) -> None:
    ax.fill_between(x, lo, hi, color=color, alpha=alpha, linewidth=0, step="pre" if steps else None)


def _draw_curve(ax: Any, curve: Curve, style: tuple[Any, int, float], steps: bool) -> None:
    """One curve on *ax*: its line (*style*: colour, its rank among its model's curves in
    the panel, the band's opacity) and its interval, as a band or, for one point, a bar."""
    color, rank, alpha = style
    x = np.asarray(curve["x"], dtype=float)
    y, lo, hi = (
        np.array([np.nan if v is None else v for v in curve[name]], dtype=float)
        for name in ("y", "ci_low", "ci_high")
    )
    ax.plot(
        x,
        y,
        marker="osD^v"[rank % 5],
        markersize=3,
        color=color,
        label=curve["label"],
        linestyle=("-", "--", ":", "-.")[rank % 4],
        drawstyle="steps-pre" if steps else "default",
    )
    if len(x) == 1 and np.isfinite(lo).all():  # a band needs two points; show a bar
        # a (2, N) array: a list of two arrays makes matplotlib test an array as a scalar
        yerr = np.vstack([y - lo, hi - y])
        ax.errorbar(x, y, yerr=yerr, color=color, capsize=4, linestyle="none")
    elif np.isfinite(lo).any():
        _band(ax, x, lo, hi, color, alpha, steps)


def _label(
    fig: Any, axes: Any, panels: list[str], words: tuple[str, str, str], curves: int
) -> None:
    """Panel titles, axis labels, the figure's title (*words*: title, x and y label) and
    one legend entry per label across panels."""
    title, xlabel, ylabel = words
    cols = axes.shape[1]
    many = curves > 6
    for ax, panel in zip(axes.flat, panels):
        ax.set_title(panel, fontsize="small")
        ax.set_xlabel(xlabel, fontsize="small" if cols > 1 else "medium")
        ax.grid(True, alpha=0.3)
    for ax in axes.flat[len(panels) :]:
        ax.set_visible(False)
    for ax in axes[:, 0]:
        ax.set_ylabel(ylabel)
    fig.suptitle(title, fontsize="medium")
    handles, labels = [], []
    for ax in axes.flat[: len(panels)]:  # one legend entry per label across panels
        for handle, label in zip(*ax.get_legend_handles_labels()):
            if label not in labels:
                handles.append(handle)
                labels.append(label)
    if cols > 1 or many:
        fig.legend(handles, labels, fontsize="small", loc="outside right upper")
    elif curves:
        axes.flat[0].legend(handles, labels, fontsize="small", loc="best")


def figure(
    curves: Sequence[Curve],
    title: str,
    xlabel: str,
    ylabel: str,
    steps: bool = False,
    colors: dict[str, Any] | None = None,
) -> Any:
    """A matplotlib figure of *curves* (Agg when saved as PNG): one panel per
    distinct ``panel`` of the curves; *colors* maps a curve's ``group`` (base model) to
    its colour."""
    import matplotlib
    from matplotlib.figure import Figure  # not pyplot: no backend, no global figure state

    panels = list(dict.fromkeys(str(c.get("panel", "")) for c in curves)) or [""]
    cols = min(len(panels), 3)
    rows = -(-len(panels) // cols)
    many = len(curves) > 6
    fig = Figure(
        figsize=(4.2 * cols + 3 if cols > 1 else (10.5 if many else 7.5), 3.6 * rows + 1.2),
        layout="constrained",
    )
    axes = fig.subplots(rows, cols, squeeze=False, sharey=True)
    groups = list(dict.fromkeys(str(curve.get("group", curve["label"])) for curve in curves))
    if colors is None:
        cmap = matplotlib.colormaps["tab10" if len(groups) <= 10 else "tab20"]
        colors = {g: cmap(i % cmap.N) for i, g in enumerate(groups)}
    seen: dict[tuple[str, str], int] = {}
    for curve in curves:
        panel = str(curve.get("panel", ""))
        group = str(curve.get("group", curve["label"]))
        # one line style per curve of a model within a panel, so a family reads together
        rank = seen[(panel, group)] = seen.get((panel, group), -1) + 1
        style = (colors.get(group, "0.4"), rank, 0.08 if many else 0.18)
        _draw_curve(axes.flat[panels.index(panel)], curve, style, steps)
    _label(fig, axes, panels, (title, xlabel, ylabel), len(curves))
    return fig


def model_colors(models: Sequence[str]) -> dict[str, Any]:
    """One colour per model of *models* (name order), the same on every chart."""
    import matplotlib

    ordered = sorted(set(models))
    cmap = matplotlib.colormaps["tab10" if len(ordered) <= 10 else "tab20"]
    return {m: cmap(i % cmap.N) for i, m in enumerate(ordered)}


def draw_figures(specs: Sequence[FigureSpec], models: Sequence[str], png: bool) -> list[Drawn]:
    """Every figure of *specs* drawn (:func:`draw`), each model of *models* in its colour."""
    colors = model_colors(models)
    return [draw(spec, colors, png) for spec in specs]


def draw(spec: FigureSpec, colors: dict[str, Any] | None, png: bool) -> Drawn:
    """Build the figure of *spec* once and write it as SVG text (and PNG bytes if *png*):
    the layout is computed by the first write and frozen for the second."""
    import matplotlib

    stem, curves, title, xlabel, ylabel, steps, rest = spec
    for curve in curves:
        curve.update({"title": title, "xlabel": xlabel, "ylabel": ylabel})
    with matplotlib.rc_context({"svg.hashsalt": stem, "svg.fonttype": "path"}):
        fig = figure(curves, title, xlabel, ylabel, steps, colors)
        image = None
        if png:  # the first write lays the figure out (constrained layout) ...
            buffer = io.BytesIO()
            fig.savefig(buffer, format="png", dpi=PNG_DPI)
            image = buffer.getvalue()
            fig.set_layout_engine("none")  # ... and the SVG keeps those positions
        text = io.StringIO()
        # no date: the same report gives the same bytes
        fig.savefig(text, format="svg", dpi=PNG_DPI, metadata={"Date": None})
    return Drawn(stem, plain_title(title), list(curves), text.getvalue(), image, rest)
