"""The book's Performance page: what ``make bench`` measured, read from committed JSON files.

Every duration and ratio on the page comes from a benchmark's own JSON (``bench/results/*.json``,
copied there from ``results/bench/`` after a ``make bench`` run and committed, with the date and
the 1-min load each run recorded); the rows are :mod:`trace_crs.report.bench_table`'s, the same
renderer ``bench/measured_table.py`` prints.  A benchmark without a committed file is a "not run"
row naming nothing it did not measure.  The whole build's time is the Reproduce page's (generated
from ``results/<profile>/timings/``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from trace_crs.report import bench_table

NAME = "performance"
NOT_RUN = "not run"


def load(results_dir: str | Path, bench_dir: str | Path = "bench/results") -> pd.DataFrame:
    """One row per benchmark (``What``, ``Measured``, ``Target``)."""
    return bench_table.frame(bench_dir)


def sources(bench_dir: str | Path = "bench/results") -> pd.DataFrame:
    """The committed JSON files the rows are read from, with their date, load and machine."""
    return bench_table.files(bench_dir)


def facts(df: pd.DataFrame) -> dict[str, Any]:
    measured = int((df["Measured"] != NOT_RUN).sum())
    return {"n_rows": len(df), "n_measured": measured, "n_not_run": len(df) - measured}
