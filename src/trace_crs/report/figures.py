"""Saving figures: every figure goes to ``figures/<name>.png`` and ``.svg``.

Output is deterministic: fixed DPI, no creation date in the metadata and a fixed SVG
hash salt, so the same data give the same bytes.
"""
from __future__ import annotations

from pathlib import Path

import matplotlib
from matplotlib.figure import Figure

FIGURES_DIR = "figures"
DPI = 150


def save(fig: Figure, name: str, figures_dir: str | Path = FIGURES_DIR) -> Figure:
    """Write ``<figures_dir>/<name>.png`` and ``.svg``; return ``fig`` (a ``plot`` ends with
    ``return figures.save(fig, NAME, figures_dir)``)."""
    out = Path(figures_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = [out / f"{name}.png", out / f"{name}.svg"]
    with matplotlib.rc_context({"svg.hashsalt": "trace", "svg.fonttype": "none"}):
        fig.savefig(paths[0], dpi=DPI, bbox_inches="tight", metadata={"Software": None})
        fig.savefig(paths[1], bbox_inches="tight", metadata={"Date": None, "Creator": None})
    return fig
