"""A default-shaped page of the book's per-baseline tables, built without any LLM run.

The default book takes hours of LLM time; what decides whether its tables read on a laptop is
their shape: every baseline of the default profile (all 15 of ``baselines.registry``), the
paper's long labels, the printed columns and values with our unrounded numbers beside them.
:func:`build` makes that shape from the paper's own printed tables (``report/paper/``, the
"paper" side) and a seeded perturbation of them (the "ours" side: synthetic, it stands for no
result), and renders it through the functions and the presentation the notebooks use
(``report.compare``, ``report.present``; Table 5 by axis and its interval table, every other
comparison page, the Deviations page's cells by cause).  :func:`page` writes it as one HTML page
with the book's table CSS in a 757 px column (the book's text column on a laptop, measured:
tests/browser.py ``COLUMN_PX``); tests/book/test_default_shape.py reads it in Chromium.

    python book/tools/default_shape.py OUT_DIR    write OUT_DIR/default_shape.html (+ trace.css)
    python book/tools/default_shape.py OUT_DIR RESULTS_DIR RUN...
                                                  Table 5 of the runs scored so far: default_results.html
"""
from __future__ import annotations

import importlib
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from trace_crs.baselines.registry import BASELINES, FAMILY, LABELS
from trace_crs.report import compare, deviations, paper, present, t05_headline

ROOT = Path(__file__).resolve().parents[2]
CSS = ROOT / "book" / "_static" / "trace.css"
COLUMN_PX = 757
SEED = 42
# The comparison pages besides Table 5 (report module -> its notebook's caption).
PAGES = {
    "t06_per_axis": "Table 6", "t09_practical": "Table 9", "t16_fuzzy_threshold": "Table 16",
    "t17_entailment_vs_fuzzy": "Table 17", "t18_spatial_threshold": "Table 18", "t19_antigaming": "Table 19",
    "t22_cgs_variants": "Table 22", "t23_difficulty": "Table 23", "t24_pool_size": "Table 24",
    "t25_open_set": "Table 25", "t26_test_split": "Table 26", "t27_multi_reference": "Table 27",
}
# A cause as long as the diagnosis writes them (report.diagnosis), shared by several cells.
LONG_CAUSE = ("R@3 and MRR far above the paper: ranked_list=response partly (gap closure 0.75 [0.53, 0.86], "
              "n = 60) | Kendall τ of the non-LLM orderings (R@1, MRR, TSR, T2R, CD): unexplained (tested: "
              "ranked_list=response, t2r_count=system, kb_missingness)")


def ours_for(reported: pd.DataFrame, columns: list[str], rng: np.random.Generator) -> pd.DataFrame:
    """A metric table for every baseline key (index) and printed column: the printed value of its
    row (the column's median for a baseline the paper does not print) moved by up to ±30 %,
    unrounded; counts stay whole numbers."""
    printed = {c: paper.numeric(reported[c]) for c in columns}
    rows = {compare.key_of(t): i for i, t in enumerate(reported["Baseline"])}
    out = {}
    for key in BASELINES:
        values = {}
        for col in columns:
            base = printed[col].iloc[rows[key]] if key in rows else printed[col].median()
            base = printed[col].median() if base != base else base
            value = float(base) * (1 + rng.uniform(-0.3, 0.3))
            values[col] = round(value) if col.startswith("n_") else value
        out[key] = values
    return pd.DataFrame.from_dict(out, orient="index")


def long_table(name: str, rng: np.random.Generator) -> pd.DataFrame:
    """The reported-vs-reproduced frame of printed table ``name`` with every baseline's row."""
    reported = paper.table(name)
    columns = [c for c in reported.columns if c != "Baseline" and paper.numeric(reported[c]).notna().any()]
    return compare.side_by_side(reported, ours_for(reported, columns, rng), {c: c for c in columns})


def with_intervals(long: pd.DataFrame, rng: np.random.Generator) -> pd.DataFrame:
    """``long`` with a dialogue-cluster interval per cell (half-width 2–8 % of the value, n = 200;
    every fifth row of a baseline rests on 3 dialogues: insufficient n), as compare.intervals gives."""
    width = long["ours"].abs() * rng.uniform(0.02, 0.08, len(long))
    few = (np.arange(len(long)) % 5) == 4
    return long.assign(ci_low=long["ours"] - width, ci_high=long["ours"] + width,
                       n_clusters=np.where(few, 3, 200), sufficient=~few)


def tables() -> list[tuple[str, object]]:
    """(section title, displayable) of every default-shaped table, in book order."""
    rng = np.random.default_rng(SEED)
    t05 = long_table(t05_headline.PAPER, rng)
    out: list[tuple[str, object]] = [("Table 5", present.axes(t05, t05_headline.AXES, "Table 5"))]
    llm = with_intervals(t05[t05["baseline"].map(lambda k: isinstance(k, str) and FAMILY.get(k) == "llm")], rng)
    out.append(("Table 5 intervals", present.split(compare.ci_table(llm), t05_headline.AXES, "95 % interval")))
    cells = [with_intervals(t05, rng).assign(table=t05_headline.PAPER)]
    for module, caption in PAGES.items():
        long = long_table(importlib.import_module(f"trace_crs.report.{module}").PAPER, rng)
        out.append((caption, present.axes(long, caption=caption)))
        if module in ("t06_per_axis", "t09_practical"):
            cells.append(with_intervals(long, rng).assign(table=module))
    cells_df = pd.concat(cells, ignore_index=True).dropna(subset=["paper", "ours", "baseline"])
    cells_df["verdict"] = [deviations.verdict(p, lo, hi, s) for p, lo, hi, s in
                           zip(cells_df["paper"], cells_df["ci_low"], cells_df["ci_high"], cells_df["sufficient"], strict=True)]
    cells_df["cause"] = np.where(cells_df["baseline"].map(FAMILY) == "llm",
                                 "model and subset: a local LM on a seeded subset, not gpt-5.4-mini", LONG_CAUSE)
    cells_df[deviations.OFFICIAL_COLUMN] = deviations.OFFICIAL_HOW  # what a default book without an official run shows
    out.append(("Deviations", present.by(deviations.deviating(cells_df), "cause")))
    return out


def scored(results_dir: Path, runs: list[str]) -> list[tuple[str, object]]:
    """Table 5 from the runs that do exist (``report.t05_headline.load``, as its notebook): the
    scored rows with their numbers, every other row of the paper "not run"."""
    df = t05_headline.load(results_dir, runs=runs)
    return [("Table 5 ordering", present.table(t05_headline.ordering_table(df), "Ordering agreement")),
            ("Table 5", present.axes(df, t05_headline.AXES, "Table 5"))]


def figures_html(out_dir: Path) -> str:
    """The comparison figures of Tables 5, 6 and 9 with every baseline (each module's ``plot``,
    saved by report.figures into ``out_dir``), as the book shows them: an SVG in a figure."""
    import matplotlib.pyplot as plt

    rng = np.random.default_rng(SEED)
    out = []
    for module in ("t05_headline", "t06_per_axis", "t09_practical"):
        report = importlib.import_module(f"trace_crs.report.{module}")
        plt.close(report.plot(long_table(report.PAPER, rng), figures_dir=out_dir))
        out.append(f'<figure><img src="{module}.svg" alt="Chart {module}"><figcaption>{module}</figcaption></figure>')
    return "\n".join(out)


def page(out_dir: Path, shown: list[tuple[str, object]] | None = None, name: str = "default_shape") -> Path:
    """Write ``out_dir/<name>.html`` (default: :func:`tables` and :func:`figures_html`) and the
    book's ``trace.css`` beside it."""
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "trace.css").write_text(CSS.read_text())
    body = "\n".join(f"<section><h2>{title}</h2>\n{s._repr_html_()}</section>" for title, s in shown or tables())
    body += "" if shown else f"\n<section><h2>Figures</h2>\n{figures_html(out_dir)}</section>"
    html = ('<!doctype html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, '
            'initial-scale=1"><link rel="stylesheet" href="trace.css"><style>body{margin:0;font-family:system-ui,'
            f'sans-serif;font-size:16px}} figure{{margin:1em 0}} main{{max-width:{COLUMN_PX}px;margin:0 auto;padding:0 8px;box-sizing:'
            f'content-box}}</style><title>Default-shaped tables ({len(LABELS)} baselines)</title></head>'
            f"<body><main><h1>Default-shaped tables</h1>\n{body}</main></body></html>")
    path = out_dir / f"{name}.html"
    path.write_text(html)
    return path


if __name__ == "__main__":
    if len(sys.argv) > 2:  # OUT_DIR RESULTS_DIR RUN...: Table 5 of the runs that exist
        print(page(Path(sys.argv[1]), scored(Path(sys.argv[2]), sys.argv[3:]), "default_results"))
    else:
        print(page(Path(sys.argv[1])))
