"""Figures drawn at the size they are shown (report/figures.py)."""
from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.text import Text  # noqa: E402

from trace_crs.report import figures  # noqa: E402


def _figure():
    fig, ax = plt.subplots(figsize=(10, 16))
    ax.scatter([0, 1], [0, 1], label="R@1")
    ax.annotate("tiny", (0.5, 0.5), fontsize=5)
    ax.set(xlabel="paper (printed)", ylabel="this run")
    ax.legend(fontsize=6)
    return fig


def test_save_fits_the_column_and_raises_small_text(tmp_path):
    fig = figures.save(_figure(), "demo", tmp_path)
    w, h = fig.get_size_inches()
    assert (w, h) == (figures.WIDTH_IN, figures.MAX_HEIGHT_IN)    # 10 x 16 -> 7.5 x min(12, 11)
    sizes = [t.get_fontsize() for t in fig.findobj(Text) if t.get_text()]
    assert min(sizes) >= figures.MIN_FONT_PT
    assert (tmp_path / "demo.svg").exists() and (tmp_path / "demo.png").exists()
    plt.close(fig)


def test_save_is_byte_identical(tmp_path):
    for out in ("a", "b"):
        fig = figures.save(_figure(), "demo", tmp_path / out)
        plt.close(fig)
    assert (tmp_path / "a" / "demo.svg").read_bytes() == (tmp_path / "b" / "demo.svg").read_bytes()


def test_describe_gives_a_caption_and_alt_text_from_what_is_drawn():
    fig = _figure()
    info = figures.describe(fig, "t05_headline")
    assert info["caption"] == "this run against paper (printed) (series: R@1)"
    assert info["alt"] == "Chart t05_headline: this run against paper (printed) (series: R@1)"
    assert info["name"] == "fig-t05-headline"
    fig.suptitle("Table 5: this run vs paper")
    assert figures.describe(fig, "t05_headline")["caption"] == "Table 5: this run vs paper"
    plt.close(fig)


def test_label_points_keeps_crowded_labels_apart():
    fig, ax = plt.subplots(figsize=(6, 4))
    xs, ys = [0.50, 0.501, 0.502, 0.8], [0.50, 0.501, 0.499, 0.2]
    ax.scatter(xs, ys)
    ax.set(xlim=(0, 1), ylim=(0, 1))
    texts = figures.label_points(ax, xs, ys, ["LLM Zero-Shot", "DST", "RAG-Citation", "TF-IDF"])
    renderer = fig.canvas.get_renderer()
    boxes = [t.get_window_extent(renderer) for t in texts]
    assert len(texts) == 4 and all(t.get_fontsize() >= figures.MIN_FONT_PT for t in texts)
    assert not any(a.overlaps(b) for i, a in enumerate(boxes) for b in boxes[i + 1:])
    frame = ax.get_window_extent(renderer)
    assert all(frame.x0 <= b.x0 and b.x1 <= frame.x1 for b in boxes)          # none runs off the axes
    plt.close(fig)


def test_save_places_labels_again_at_the_final_size(tmp_path):
    fig, ax = plt.subplots(figsize=(12, 9))
    xs, ys = [0.50, 0.501, 0.502, 0.99], [0.50, 0.501, 0.499, 0.5]
    ax.scatter(xs, ys)
    ax.set(xlim=(0, 1), ylim=(0, 1))
    figures.label_points(ax, xs, ys, ["LLM Zero-Shot", "DST", "RAG-Citation", "Knowledge-Enh."])
    figures.save(fig, "labels", tmp_path)                                       # 12 in -> 7.5 in, relaid out
    renderer = fig.canvas.get_renderer()
    texts = [t for t in ax.texts if t.get_text()]
    boxes = [t.get_window_extent(renderer) for t in texts]
    frame = ax.get_window_extent(renderer)
    assert len(texts) == 4 and not any(a.overlaps(b) for i, a in enumerate(boxes) for b in boxes[i + 1:])
    assert all(frame.x0 <= b.x0 and b.x1 <= frame.x1 for b in boxes)
    plt.close(fig)


def test_the_saved_svg_has_no_text_below_9pt(tmp_path):
    """Read from the SVG itself (its user unit is 1 pt): tick labels set small before saving and a
    log axis' labels (10^k, whose k mathtext draws at 0.7×) are all at least 9 pt."""
    import re
    fig, (left, right) = plt.subplots(1, 2, figsize=(6.5, 3))
    left.barh(["KB: POIs", "KB: Reviews"], [0.01, 300.0])
    left.set_xscale("log")
    left.tick_params(axis="y", labelsize=7)
    right.plot([1, 2], [3, 4])
    right.tick_params(labelsize=6)
    figures.save(fig, "small", tmp_path)
    svg = (tmp_path / "small.svg").read_text()
    sizes = [float(x) for x in re.findall(r"font(?:-size)?: ([\d.]+)px", svg)]
    assert sizes and min(sizes) >= figures.MIN_FONT_PT
    assert "KB: POIs" in svg and "<tspan" not in svg          # plain text, no mathtext pieces
    plt.close(fig)


def test_long_tick_labels_never_push_the_saved_figure_out_of_the_column(tmp_path):
    """Long y tick labels hang left of the axes: the saved (tight) figure is narrowed until it
    is no wider than the column, so the page never shows it shrunk."""
    import re

    fig, ax = plt.subplots(figsize=(6.5, 4))
    ax.barh([f"Dialogues: a very long statistic name number {i} of the table" for i in range(6)], range(1, 7))
    ax.set(xlabel="this profile / paper (grey: a generator input, not a result)")
    figures.save(fig, "long", tmp_path)
    width_pt = float(re.search(r'width="([\d.]+)pt"', (tmp_path / "long.svg").read_text())[1])
    pad_pt = 2 * 0.1 * 72                                            # savefig's tight pad, each side
    assert width_pt <= figures.WIDTH_IN * 72 + pad_pt + 1
    assert fig.get_size_inches()[0] < figures.WIDTH_IN                # it was narrowed, not cut
    plt.close(fig)



# Cost and quality of 15 baselines on a smoke run (CI, 2026-12-03): costs of the non-LLM ones are
# near 0, so their labels crowd the left edge; a re-run's latencies move them.
_COSTS = [0.0086, 0.0003, 33.9, 0.0019, 0.0008, 58.1, 0.0006, 37.3, 37.2, 16.8, 0.0012, 0.0065, 50.2, 0.0004, 0.022]
_QUALITY = [0.42, 0.42, 0.33, 0.42, 0.83, 0.0, 0.83, 0.0, 0.0, 0.0, 0.25, 0.33, 0.0, 0.83, 0.83]
_NAMES = ["Aspect", "Dense", "DST", "Hybrid-RRF", "Itinerary", "Itinerary-LLM", "Knowledge-Enh.", "LLM Zero-Shot",
          "Memory-Aug.", "Multi-Rev. Synth.", "Persona-Ground.", "Popularity", "RAG-Citation", "Spatial", "TF-IDF"]


def test_point_labels_placed_at_the_final_size_never_push_the_figure_out_of_the_column(tmp_path):
    """A label that finds no free place inside its axes at the final size hangs out of it: the
    layout makes room and the saved figure is still no wider than the column (CI, 2026-12-03:
    the oracle figure came out 570 pt wide and was shown shrunk to 8.8 pt text)."""
    import re

    import numpy as np

    rng = np.random.default_rng(0)
    widths = []
    for _ in range(20):
        fig, (a, b, c) = plt.subplots(3, 1, figsize=(7.5, 11))
        a.plot([0, 1], [0, 1])
        b.bar(range(3), [1, 2, 3])
        xs = [x * f for x, f in zip(_COSTS, rng.uniform(0.5, 1.5, len(_COSTS)), strict=True)]
        c.scatter(xs, _QUALITY)
        figures.label_points(c, xs, _QUALITY, _NAMES)
        c.plot(sorted(xs), sorted(_QUALITY), marker=".", label="budget oracle")
        c.legend(fontsize=7)
        fig.suptitle("Oracles: a title", fontsize=9)
        figures.save(fig, "crowded", tmp_path)
        widths.append(float(re.search(r'width="([\d.]+)pt"', (tmp_path / "crowded.svg").read_text())[1]))
        plt.close(fig)
    assert max(widths) <= figures.WIDTH_IN * 72 + 2 * 0.1 * 72 + 1
