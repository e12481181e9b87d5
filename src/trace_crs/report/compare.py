"""Reported vs reproduced: the paper's printed value, ours, and the difference.

``BASELINES`` maps our baseline keys (ARCHITECTURE §3) to the paper's row labels and
families, as read from :mod:`trace_crs.baselines.registry`.  :func:`side_by_side` joins a paper table with our
metric table into a long frame ``Baseline, baseline, column, metric, paper, ours, diff``
(``diff = ours - paper``), which is what every ``results/<profile>/tables/<name>.csv``
holds; :func:`wide` pivots it for display.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt
import pandas as pd
from matplotlib.figure import Figure

from trace_crs import DEFAULT_SEED
from trace_crs.baselines import registry
from trace_crs.report import paper, present, results
from trace_crs.stats.bootstrap import N_BOOT

# re-exported: notebooks glue the evidence threshold as report.compare.MIN_CLUSTERS
from trace_crs.stats.intervals import MIN_CLUSTERS as MIN_CLUSTERS
from trace_crs.stats.intervals import Derived, cell_intervals, statistic_intervals

# key: (paper label, family), from the one baseline catalogue (baselines.registry).
BASELINES: dict[str, tuple[str, str]] = {k: (registry.LABELS[k], registry.FAMILY[k]) for k in registry.BASELINES}
# Short and long forms the paper prints in a few tables (Table 21; Table 8).
ALIASES = {"RAG-Cit.": "rag_citation", "Multi-Rev.": "mrs", "Persona-Grounded": "persona", "Multi-Review Synth.": "mrs"}
LONG_COLUMNS = ["Baseline", "baseline", "column", "metric", "paper", "ours", "diff"]
PROVENANCE_COLUMNS = results.PROVENANCE_COLUMNS
# Long-frame column: why a reproduced cell has no value although it was computed ("" otherwise;
# from the metric table's ``attrs[results.UNDEFINED]``); the book shows "undefined" there, not "not run".
UNDEFINED = results.UNDEFINED
NEEDS = results.NEEDS


def label(key: str) -> str:
    """The paper's row label of a baseline key; unknown keys are returned unchanged."""
    return BASELINES[key][0] if key in BASELINES else key


def key_of(text: str) -> str | None:
    """The baseline key of a paper row label (None for rows that are not our baselines)."""
    by_label = {lab: key for key, (lab, _) in BASELINES.items()}
    return by_label.get(text, ALIASES.get(text))


def family(key: str) -> str:
    """``"llm"`` or ``"non_llm"`` for a baseline key."""
    return BASELINES[key][1]


def side_by_side(
    reported: pd.DataFrame, ours: pd.DataFrame, columns: Mapping[str, str], label_col: str = "Baseline"
) -> pd.DataFrame:
    """Long reported-vs-reproduced frame.

    ``reported``: a paper table (printed strings); ``ours``: metric table indexed by
    baseline key; ``columns``: paper column -> our metric column.  Rows: paper rows in
    printed order, then our baselines the paper does not print.  A metric we did not
    compute gives ``ours = NaN``; a paper cell lost in extraction gives ``paper = NaN``; a metric
    computed without a value (``ours.attrs[results.UNDEFINED]``) gives ``ours = NaN`` and its reason
    in column ``undefined``.
    """
    keys = [key_of(t) for t in reported[label_col]]
    extra: list[str] = [k for k in ours.index if k not in keys]
    rows = []
    for col, metric in columns.items():
        printed = paper.numeric(reported[col]) if col in reported else pd.Series(float("nan"), index=reported.index)
        for text, key, value in zip(reported[label_col], keys, printed, strict=False):
            rows.append((text, key, col, metric, value, _ours(ours, key, metric)))
        for key in extra:
            rows.append((label(key), key, col, metric, float("nan"), _ours(ours, key, metric)))
    frame = pd.DataFrame(rows, columns=LONG_COLUMNS[:-1])
    frame["diff"] = frame["ours"] - frame["paper"]
    why = ours.attrs.get(results.UNDEFINED, {})
    frame[UNDEFINED] = [
        why.get(metric, {}).get(key, "") if pd.isna(value) else ""
        for metric, key, value in zip(frame["metric"], frame["baseline"], frame["ours"], strict=True)
    ]
    carried = [c for c in PROVENANCE_COLUMNS if c in ours.columns]
    frame = frame.merge(ours[carried], left_on="baseline", right_index=True, how="left")
    for metric, made_by in ours.attrs.get(results.JOINED, {}).items():  # a joined column names its own run
        of_metric = frame["metric"] == metric
        for c in carried:
            joined = pd.Series([made_by.get(k, {}).get(c) for k in frame["baseline"]], index=frame.index, dtype=object)
            frame[c] = frame[c].astype(object).where(~of_metric, joined).infer_objects()
    return frame


def needs(long: pd.DataFrame, where: pd.Series, what: str) -> pd.DataFrame:
    """``long`` with column ``needs`` = ``what`` on the rows ``where`` whose ``ours`` is missing: cells
    that wait for an input the user must bring (an API model, the official release), which the book shows
    as "needs input" with ``what`` under the table, never as "not run"."""
    out = long.copy()
    column = out[NEEDS] if NEEDS in out.columns else pd.Series("", index=out.index, dtype=object)
    out[NEEDS] = column.where(~(where & out["ours"].isna()), what)
    return out


def _ours(ours: pd.DataFrame, key: str | None, metric: str) -> float:
    if key is None or key not in ours.index or metric not in ours.columns:
        return float("nan")
    value = ours.at[key, metric]
    return float("nan") if value is None else float(value)


def wide(long: pd.DataFrame) -> pd.DataFrame:
    """Display form: one row per paper label, columns ``(column, paper|ours|diff)``."""
    order = list(dict.fromkeys(long["Baseline"]))
    cols = list(dict.fromkeys(long["column"]))
    table = long.pivot(index="Baseline", columns="column", values=["paper", "ours", "diff"])
    table = table.swaplevel(0, 1, axis=1)
    table = table.reindex(index=order, columns=pd.MultiIndex.from_product([cols, ["paper", "ours", "diff"]]))
    table.columns.names = [None, None]
    return table.astype(float).round(3)


def intervals(
    long: pd.DataFrame,
    results_dir: str | Path,
    families: Sequence[str] = ("llm",),
    n_boot: int = N_BOOT,
    seed: int = DEFAULT_SEED,
    elsewhere: Mapping[str, tuple[Sequence[str], str]] | None = None,
) -> pd.DataFrame:
    """Display form with uncertainty for the rows of ``families`` (STYLE "Presentation": every LLM number
    with its n and a dialogue-cluster bootstrap interval): one row per paper label, one column
    per paper column holding ``ours [ci_low, ci_high]`` (95 %, :func:`trace_crs.stats.intervals.cell_intervals`)
    or ``ours (insufficient n)`` below the minimum number of dialogues or for a degenerate
    interval; ``n`` is the number of dialogues behind each cell.  ``elsewhere`` maps a metric
    that :func:`results.with_metric` took from other runs to ``(runs, metric there)``, e.g.
    ``{"recall@1_open": (open_runs, "recall@1")}``."""
    keep = long["baseline"].map(lambda k: isinstance(k, str) and k in BASELINES and family(k) in families)
    part = long[keep & long["ours"].notna()]
    if part.empty:
        return pd.DataFrame()
    runs, names = sorted(set(part["run"].dropna())), sorted(set(part["baseline"]))
    ci = run_intervals(results_dir, runs, sorted(set(part["metric"])), names, n_boot, seed)
    ci_cols = ["ci_low", "ci_high", "n_clusters", "sufficient"]
    part = part.merge(ci[["run", "baseline", "metric", *ci_cols]], on=["run", "baseline", "metric"], how="left")
    for metric, (other_runs, source) in (elsewhere or {}).items():
        have = part["metric"] == metric
        if not have.any():
            continue
        wanted = sorted(set(part.loc[have, "baseline"]))
        there = (
            run_intervals(results_dir, other_runs, [source], wanted, n_boot, seed)
            .drop_duplicates("baseline")
            .set_index("baseline")
        )
        for col in ci_cols:
            part.loc[have, col] = part.loc[have, "baseline"].map(there[col]).to_numpy()
    return ci_table(part)


def run_intervals(
    results_dir: str | Path,
    runs: Sequence[str],
    metrics: Sequence[str],
    baselines: Sequence[str] | None = None,
    n_boot: int = N_BOOT,
    seed: int = DEFAULT_SEED,
) -> pd.DataFrame:
    """:func:`trace_crs.stats.intervals.cell_intervals` of ``metrics`` over the per-turn and
    per-dialogue score frames of ``runs`` (``baselines``: all when ``None``) under ``results_dir``."""
    return cell_intervals(
        results.load_per_turn(results_dir, runs, baselines),
        results.load_per_dialogue(results_dir, runs, baselines),
        metrics,
        n_boot=n_boot,
        seed=seed,
    )


def ci_table(part: pd.DataFrame) -> pd.DataFrame:
    """The display form of cells with intervals, shared by every page that shows them: one row per
    ``Baseline`` (both in first-seen order) with ``n``, the number of dialogues most of its cells
    rest on, then one column per ``column`` holding ``ours [ci_low, ci_high]``
    (:func:`trace_crs.report.present.interval`; a cell resting on another n says so) when
    ``sufficient``, ``ours (insufficient n)`` otherwise (with ``, n = k`` if k is not the row's), ``ours (no interval)`` when no
    interval could be formed (``n_clusters`` NaN).  When ``part`` has the printed value
    (``paper``), ``attrs["deviates"]`` marks the cells whose printed value lies outside the
    interval (the page highlights them)."""
    baselines = list(dict.fromkeys(part["Baseline"]))
    columns = list(dict.fromkeys(part["column"]))
    row_n = part.groupby("Baseline", sort=False)["n_clusters"].agg(
        lambda s: s.dropna().mode().iloc[0] if s.notna().any() else float("nan")
    )
    cells, flags = [], []
    for b, o, lo, hi, n, s, p in zip(
        part["Baseline"],
        part["ours"],
        part["ci_low"],
        part["ci_high"],
        part["n_clusters"],
        part["sufficient"],
        part["paper"] if "paper" in part else [float("nan")] * len(part),
        strict=False,
    ):
        ok = s is True
        shown_n = None if n != n or n == row_n[b] else n
        cells.append(present.interval(o, lo, hi, ok, shown_n) if n == n else f"{present.number(o)} (no interval)")
        flags.append(bool(ok and p == p and not lo <= p <= hi))
    part = part.assign(cell=cells, flag=flags)
    table = part.pivot(index="Baseline", columns="column", values="cell").reindex(index=baselines, columns=columns)
    table.columns.name = None
    table.insert(
        0, "n", [present.number(int(row_n[b])) if row_n[b] == row_n[b] else present.MISSING for b in baselines]
    )
    table.attrs["lift"] = ["n"]  # a constant result column stays in the table; only n may go to the caption
    if "paper" in part:
        mask = part.pivot(index="Baseline", columns="column", values="flag").reindex(index=baselines, columns=columns)
        mask.insert(0, "n", False)
        table.attrs["deviates"] = mask.map(lambda v: bool(v) if v == v else False)
    return table


def intervals_for(columns: Mapping[str, Derived], statistic: str) -> Callable[..., pd.DataFrame]:
    """A table module's ``intervals(results_dir, runs=("closed", "closed_llm"), n_boot=N_BOOT,
    seed=DEFAULT_SEED)``: :func:`derived_intervals` of its ``columns``; ``statistic`` says in the
    docstring what each interval is of."""

    def intervals(
        results_dir: str | Path,
        runs: Sequence[str] = ("closed", "closed_llm"),
        n_boot: int = N_BOOT,
        seed: int = DEFAULT_SEED,
    ) -> pd.DataFrame:
        return derived_intervals(results_dir, runs, columns, n_boot=n_boot, seed=seed)

    intervals.__doc__ = (
        f"LLM rows with n and a 95 % dialogue-cluster bootstrap interval per column ({statistic}; "
        ':func:`compare.derived_intervals`; "insufficient n" below the minimum number of dialogues).'
    )
    return intervals


def derived_intervals(
    results_dir: str | Path,
    runs: Sequence[str],
    columns: Mapping[str, Derived],
    n_boot: int = N_BOOT,
    seed: int = DEFAULT_SEED,
    families: Sequence[str] = ("llm",),
) -> pd.DataFrame:
    """:func:`ci_table` of the derived ``columns`` (paper column -> :class:`~trace_crs.stats.intervals.Derived`,
    :func:`~trace_crs.stats.intervals.statistic_intervals`) for the baselines of ``families``
    scored in ``runs`` (registry order), read from their per-turn frames only (the
    non-LLM rows rest on the full corpus).  Empty when ``runs`` score no such baseline."""
    scored = {b for run in runs for b in results.run_baselines(results_dir, run)}
    names = [k for k in BASELINES if k in scored and family(k) in families]
    if not names:
        return pd.DataFrame()
    ci = statistic_intervals(results.load_per_turn(results_dir, runs, names), columns, n_boot=n_boot, seed=seed)
    ci = ci[ci["estimate"].notna()]
    if ci.empty:
        return pd.DataFrame()
    ci = ci.assign(order=ci["baseline"].map(names.index), at=ci["column"].map(list(columns).index))
    ci = ci.sort_values(["order", "at"]).rename(columns={"estimate": "ours"})
    table = ci_table(ci.assign(Baseline=ci["baseline"].map(label)))
    kept = table[["n", *[c for c in columns if c in table.columns]]]  # paper order even if a first row lacks one
    kept.attrs = table.attrs
    return kept


def plot(long: pd.DataFrame, title: str) -> Figure:
    """Scatter of ours vs paper for every cell both have, one colour per column, y = x."""
    both = long.dropna(subset=["paper", "ours"])
    fig, ax = plt.subplots(figsize=(5.5, 5))
    for col, part in both.groupby("column", sort=False):
        ax.scatter(part["paper"], part["ours"], label=col, s=18)
    lims = [0.0, max(1.0, float(both[["paper", "ours"]].max().max()) if len(both) else 1.0)]
    ax.plot(lims, lims, color="grey", lw=0.8, ls="--")
    ax.set(xlabel="paper (printed)", ylabel="this run", title=title)
    if len(both):
        ax.legend(fontsize=7, ncol=2)
    return fig


def mean_drop(df: pd.DataFrame, first: str, last: str) -> dict[str, Any]:
    """Mean of our values over baselines in column ``first`` and in column ``last`` of a long
    reported-vs-reproduced frame, and the drop between them (glued facts of Tables 23, 24)."""
    mean = df.groupby("column")["ours"].mean()
    return {
        "first": first,
        "last": last,
        "mean_first": float(mean[first]),
        "mean_last": float(mean[last]),
        "mean_drop": float(mean[first] - mean[last]),
    }
