"""Parquet inputs of the commands (score tables, a run's records): a file that is not a
readable Parquet table is a :class:`~trace_crs.errors.DataError` naming it (exit 3), not a
usage error without a path."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def read_table(path: str | Path, columns: tuple[str, ...] = ()) -> Any:
    """``pandas.read_parquet(path)``; unreadable Parquet, or a table without one of ``columns``,
    is a DataError naming ``path``."""
    import pandas as pd
    import pyarrow as pa

    from trace_crs.errors import DataError

    try:
        frame = pd.read_parquet(path)
    except (pa.ArrowException, OSError) as exc:
        if isinstance(exc, (FileNotFoundError, PermissionError, IsADirectoryError, NotADirectoryError)):
            raise  # a usage error (exit 2) with the path, as for every input
        raise DataError(f"not a readable Parquet table ({str(exc).splitlines()[0][:200]})", file=str(path)) from None
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise DataError(
            f"no column(s) {', '.join(missing)} (has {', '.join(map(str, frame.columns))[:200]})", file=str(path)
        )
    return frame


def safe_cells(frame: Any) -> Any:
    """``frame`` with every text cell a spreadsheet would run as a formula escaped (OWASP's CSV
    injection rule, :func:`trace_crs.human.labels.csv_cell`): names in a written CSV come from
    file names and records the user chose (a score file named ``=1+1.score.json``)."""
    from trace_crs.human.labels import csv_cell

    out = frame.copy()
    for col in out.columns:
        if out[col].dtype == object:
            out[col] = out[col].map(csv_cell)
    return out.rename(columns=lambda c: csv_cell(c) if isinstance(c, str) else c)
