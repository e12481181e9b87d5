"""Start vs branch agreement of the preference reader with the hand readings, per fixture:
cases read as by hand by each (Wilson 95 % intervals, stats.intervals.wilson) and the exact
McNemar test on the paired cases (statsmodels; the discordant pairs decide it).  Inputs are the
``--cases`` files of ``real_requests.py`` run once with each ``trace_crs`` on PYTHONPATH.

    PYTHONPATH=START/src python tests/baselines/real_requests.py --cases start.jsonl
    PYTHONPATH=BRANCH/src python tests/baselines/real_requests.py --cases branch.jsonl
    python tests/baselines/agreement_compare.py start.jsonl branch.jsonl
"""

from __future__ import annotations

import argparse

import pandas as pd
from statsmodels.stats.contingency_tables import mcnemar

from trace_crs.stats.intervals import wilson


def compare(start: pd.DataFrame, branch: pd.DataFrame) -> pd.DataFrame:
    """One row per fixture: n, agreeing cases start/branch with Wilson intervals, the
    discordant counts (``fixed``: start wrong, branch right; ``broken``: the reverse) and the
    exact McNemar p-value."""
    both = start.merge(branch, on=["fixture", "category", "text"], suffixes=("_start", "_branch"), validate="1:1")
    if len(both) != len(start) or len(both) != len(branch):
        raise ValueError("start and branch must read the same cases")
    rows = []
    for fixture, g in both.groupby("fixture", sort=False):
        a, b = g["agree_start"].astype(bool), g["agree_branch"].astype(bool)
        fixed, broken = int((~a & b).sum()), int((a & ~b).sum())
        table = [[int((a & b).sum()), broken], [fixed, int((~a & ~b).sum())]]
        row = {"fixture": fixture, "n": len(g), "start_k": int(a.sum()), "branch_k": int(b.sum())}
        for side, k in (("start", row["start_k"]), ("branch", row["branch_k"])):
            lo, hi = wilson(pd.Series([k]), pd.Series([len(g)]))
            row |= {f"{side}_share": k / len(g), f"{side}_lo": float(lo[0]), f"{side}_hi": float(hi[0])}
        rows.append(row | {"fixed": fixed, "broken": broken, "mcnemar_p": float(mcnemar(table, exact=True).pvalue)})
    return pd.DataFrame(rows)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("start")
    parser.add_argument("branch")
    args = parser.parse_args(argv)
    table = compare(pd.read_json(args.start, lines=True), pd.read_json(args.branch, lines=True))
    print(table.to_string(index=False, float_format=lambda x: f"{x:.3f}"))


if __name__ == "__main__":
    main()
