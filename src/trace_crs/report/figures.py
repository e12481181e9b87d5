"""Saving and showing figures: every figure goes to ``figures/<name>.png`` and ``.svg``.

Output is deterministic: fixed DPI, no creation date in the metadata and a fixed SVG
hash salt, so the same data give the same bytes.

Drawn at the size it is shown (STYLE "Presentation"): :func:`save` sets the figure
``WIDTH_IN`` inches wide (the book's text column, ≈ 757 px) and raises every text below
``MIN_FONT_PT`` to it, so the smallest text is ≥ 9 pt on the page.  Inside a notebook it shows
the SVG itself, carrying a caption and alt text in the output's metadata
(``trace_figure``); ``book/tools/pipeline.py reader`` moves them into the cell's ``mystnb``
metadata, so the book numbers the figure and gives its image real alt text.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

import matplotlib
import matplotlib.pyplot as plt
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.text import Text
from matplotlib.ticker import LogFormatter, LogFormatterSciNotation

FIGURES_DIR = "figures"
DPI = 150
WIDTH_IN = 7.5
MAX_HEIGHT_IN = 11.0  # a stacked multi-panel figure may be tall; none taller than a laptop screen and a half
MIN_FONT_PT = 9.0
META_KEY = "trace_figure"


def _title(fig: Figure) -> str:
    suptitle = getattr(fig, "_suptitle", None)
    if suptitle is not None and suptitle.get_text():
        return str(suptitle.get_text())
    return next((str(ax.get_title()) for ax in fig.axes if ax.get_title()), "")


def describe(fig: Figure, name: str) -> dict[str, str]:
    """Caption and alt text of ``fig`` from what it draws: its title (else "y against x" of its
    first axes), then every axes' labels and legend entries for the alt text."""
    axes = [ax for ax in fig.axes if ax.get_visible()]
    parts = []
    for ax in axes:
        what = " against ".join(t for t in (ax.get_ylabel(), ax.get_xlabel()) if t)
        legend = ax.get_legend()
        entries = [t.get_text() for t in legend.get_texts()] if legend is not None else []
        parts.append(
            (f"{ax.get_title()}: " if ax.get_title() else "")
            + (what or "chart")
            + (f" (series: {', '.join(entries)})" if entries else "")
        )
    caption = _title(fig) or (parts[0] if parts else name)
    alt = f"Chart {name}: " + "; ".join(parts) if parts else f"Chart {name}"
    return {"caption": caption, "alt": alt, "name": f"fig-{name.replace('_', '-')}"}


def fit(fig: Figure) -> Figure:
    """Resize ``fig`` to the column width (aspect kept, height capped) and raise small text."""
    w, h = fig.get_size_inches()
    fig.set_size_inches(WIDTH_IN, min(MAX_HEIGHT_IN, h * WIDTH_IN / w))
    for axis in (a for ax in fig.axes for a in (ax.xaxis, ax.yaxis)):
        # Tick labels are remade at each draw from the axis' own size, so raise that size; a log
        # axis' 10^k labels set k as a 0.7× superscript (mathtext): write them as plain numbers.
        sides: tuple[tuple[Literal["major", "minor"], list[Any]], ...] = (
            ("major", axis.get_major_ticks()),
            ("minor", axis.get_minor_ticks()),
        )
        for which, ticks in sides:
            if any(float(t.label1.get_fontsize()) < MIN_FONT_PT for t in ticks):
                axis.set_tick_params(which=which, labelsize=MIN_FONT_PT)
        for fmt, setter in (
            (axis.get_major_formatter(), axis.set_major_formatter),
            (axis.get_minor_formatter(), axis.set_minor_formatter),
        ):
            if type(fmt) is LogFormatterSciNotation:
                setter(LogFormatter(labelOnlyBase=fmt.labelOnlyBase, minor_thresholds=fmt.minor_thresholds))
    for text in fig.findobj(Text):
        if text.get_text() and float(text.get_fontsize()) < MIN_FONT_PT:  # stubs say float | str; a size is a float
            text.set_fontsize(MIN_FONT_PT)
    return fig


# Where a point's label may go, in points from the point (first free one wins).
_OFFSETS = (
    (4, 3),
    (4, -11),
    (-4, 3),
    (-4, -11),
    (4, 13),
    (-4, 13),
    (4, -21),
    (-4, -21),
    (14, 20),
    (-14, 20),
    (14, -28),
    (-14, -28),
    (24, 4),
    (-24, 4),
    (24, -14),
    (-24, -14),
)
_LABELS = "_trace_point_labels"  # attribute of an Axes: its label_points calls, re-placed by save


def label_points(
    ax: Axes, xs: Sequence[float], ys: Sequence[float], labels: Sequence[str], fontsize: float = MIN_FONT_PT
) -> list[Text]:
    """Label each point (x, y) so that no two labels overlap: each label takes the first offset
    of ``_OFFSETS`` where its box stays inside the axes and meets no label placed before (the
    last offset if none is free).
    :func:`save` places them again once the figure has its final size and layout."""
    spec = (list(xs), list(ys), [str(t) for t in labels], fontsize)
    setattr(ax, _LABELS, [*getattr(ax, _LABELS, []), (spec, [])])
    return _place(ax)


def _place(ax: Axes) -> list[Text]:
    renderer = ax.figure.canvas.get_renderer()  # type: ignore[attr-defined]  # Agg (the backend used) has one
    frame = ax.get_window_extent(renderer)  # labels stay inside the axes (off the legend beside it)
    placed: list[Any] = []
    out = []
    for (xs, ys, labels, fontsize), texts in getattr(ax, _LABELS, []):
        for text in texts:
            text.remove()
        texts.clear()
        for x, y, label in sorted(zip(xs, ys, labels, strict=False), key=lambda p: (-p[1], p[0])):
            if x != x or y != y:  # a missing coordinate has no point to label
                continue
            for dx, dy in _OFFSETS:
                text = ax.annotate(
                    label,
                    (x, y),
                    xytext=(dx, dy),
                    textcoords="offset points",
                    fontsize=fontsize,
                    ha="left" if dx > 0 else "right",
                    va="bottom",
                )
                box = text.get_window_extent(renderer).expanded(1.05, 1.15)
                inside = frame.x0 <= box.x0 and box.x1 <= frame.x1 and frame.y0 <= box.y0 and box.y1 <= frame.y1
                if (inside and not any(box.overlaps(other) for other in placed)) or (dx, dy) == _OFFSETS[-1]:
                    break
                text.remove()
            placed.append(box)
            texts.append(text)
        out.extend(texts)
    return out


def _in_notebook() -> bool:
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover - IPython is a dependency of the notebooks
        return False
    shell = get_ipython()
    return shell is not None and type(shell).__name__ == "ZMQInteractiveShell"


def show(fig: Figure, svg: Path, info: dict[str, str]) -> None:
    """Display the saved SVG with ``info`` (caption, alt, name) as output metadata and close the
    figure, so the inline backend does not show it a second time as a PNG."""
    from IPython.display import SVG, display

    display(SVG(filename=str(svg)), metadata={META_KEY: info})
    plt.close(fig)


def _layout(fig: Figure) -> None:
    with warnings.catch_warnings():  # a layout it cannot improve is kept as drawn, silently
        warnings.simplefilter("ignore")
        fig.tight_layout()


def _settle(fig: Figure) -> None:
    """Lay ``fig`` out, then place its point labels at that size and lay it out again: a label
    that finds no free place inside its axes hangs out of it, and the layout must make room."""
    _layout(fig)
    labelled = [ax for ax in fig.axes if getattr(ax, _LABELS, None)]
    for ax in labelled:
        _place(ax)
    if labelled:
        _layout(fig)
        for ax in labelled:  # measured again in the final layout; the second layout moved little
            _place(ax)


def save(fig: Figure, name: str, figures_dir: str | Path = FIGURES_DIR, caption: str | None = None) -> Figure:
    """Write ``<figures_dir>/<name>.png`` and ``.svg`` at the column width; return ``fig`` (a
    ``plot`` ends with ``return figures.save(fig, NAME, figures_dir)``).  In a notebook, show it
    with its caption (``caption``, else :func:`describe`'s) and alt text."""
    out = Path(figures_dir)
    out.mkdir(parents=True, exist_ok=True)
    fit(fig)
    _settle(fig)
    for _ in range(4):  # long tick labels or a point label can hang out of the column: narrow the figure
        excess = fig.get_tightbbox().width - WIDTH_IN
        if excess <= 0.01:
            break
        w, h = fig.get_size_inches()
        fig.set_size_inches(w - excess, h)
        _settle(fig)
    paths = [out / f"{name}.png", out / f"{name}.svg"]
    with matplotlib.rc_context({"svg.hashsalt": "trace", "svg.fonttype": "none"}):
        fig.savefig(paths[0], dpi=DPI, bbox_inches="tight", metadata={"Software": None})
        fig.savefig(paths[1], bbox_inches="tight", metadata={"Date": None, "Creator": None})
    if _in_notebook():
        info: dict[str, Any] = describe(fig, name)
        if caption:
            info["caption"] = caption
        show(fig, paths[1], info)
    return fig
