"""Input checks shared by the statistics and oracle layers (ARCHITECTURE.md §5–6).

Every check raises ``ValueError`` naming the frame (``source``), the offending row and the
field, so that bad input is never dropped silently.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import pandas as pd


def require_columns(df: pd.DataFrame, columns: Iterable[str], source: str) -> None:
    """Raise ``ValueError`` if ``df`` lacks any of ``columns``."""
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise ValueError(f"{source}: missing column(s) {missing}; has {sorted(map(str, df.columns))}")


def require_finite(
    df: pd.DataFrame, column: str, source: str, *, allow_nan: bool = False, min_value: float | None = None
) -> None:
    """Raise ``ValueError`` on the first non-numeric, NaN/inf (unless allowed) or too-small value."""
    values = pd.to_numeric(df[column], errors="coerce").to_numpy(float)
    raw_nan = df[column].isna().to_numpy()
    bad = np.isnan(values) & ~raw_nan  # not convertible to a number
    if not allow_nan:
        bad |= np.isnan(values)
    bad |= np.isinf(values)
    if min_value is not None:
        bad |= values < min_value
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        row = df.iloc[i]
        where = ", ".join(f"{k}={row[k]!r}" for k in ("dialogue_id", "turn_id", "baseline") if k in df.columns)
        rule = "finite" + ("" if min_value is None else f" and ≥ {min_value}")
        raise ValueError(
            f"{source}: row {df.index[i]!r} ({where}) field {column!r} = {row[column]!r}; " f"expected a {rule} number"
        )


def require_baselines(df: pd.DataFrame, baselines: Iterable[str], source: str) -> None:
    """Raise ``ValueError`` if any of ``baselines`` has no row in ``df``."""
    present = set(df["baseline"].unique())
    missing = [b for b in baselines if b not in present]
    if missing:
        raise ValueError(f"{source}: no rows for baseline(s) {missing}; present: {sorted(present)}")
