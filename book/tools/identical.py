"""Are two results directories' tables byte-identical? (a refactor must not change a reported number).

Compares every table CSV (``tables/*.csv``) and figure data CSV (``figures/*.csv``, if any)
under two profile results directories by SHA256 and prints the files only in A (removed), only
in B (added) and in both with different bytes, with their first differing line.  A rename
table maps an old file name to its new one, so a renamed table is compared with its old self.

    python book/tools/identical.py A B [--renames FILE.yaml]

``FILE.yaml`` holds ``old.csv: new.csv`` lines; :data:`RENAMES` (the move to one ``tNN_<name>``
stem per paper artifact) is the default.  Columns that hold this machine's wall-clock time
(:data:`MEASURED`) differ between any two builds: a file that differs only there is reported as
``measured`` and does not count as a difference.  Exit 0 when identical, 1 on any difference, 2 on
a usage error.
"""
from __future__ import annotations

import argparse
import hashlib
import sys
from pathlib import Path
from typing import Mapping

import pandas as pd
import yaml

SUBDIRS = ("tables", "figures")

# Old table names -> the one stem per paper artifact (notebook = report module = CSV).
RENAMES: dict[str, str] = {
    "tables/table3_dataset_stats.csv": "tables/t03_dataset.csv",
    "tables/table5_headline.csv": "tables/t05_headline.csv",
    "tables/table6_per_axis.csv": "tables/t06_per_axis.csv",
    "tables/table9_practical.csv": "tables/t09_practical.csv",
    "tables/table16_fuzzy_threshold.csv": "tables/t16_fuzzy_threshold.csv",
    "tables/table17_entailment_vs_fuzzy.csv": "tables/t17_entailment_vs_fuzzy.csv",
    "tables/table18_spatial_threshold.csv": "tables/t18_spatial_threshold.csv",
    "tables/table19_antigaming.csv": "tables/t19_antigaming.csv",
    "tables/table21_bootstrap_pairs.csv": "tables/t21_bootstrap.csv",
    "tables/table22_cgs_variants.csv": "tables/t22_cgs_variants.csv",
    "tables/table23_difficulty.csv": "tables/t23_difficulty.csv",
    "tables/table24_pool_size.csv": "tables/t24_pool_size.csv",
    "tables/table25_open_set_prefilter.csv": "tables/t25_open_set.csv",
    "tables/table26_test_split.csv": "tables/t26_test_split.csv",
    "tables/table27_multi_reference.csv": "tables/t27_multi_reference.csv",
    "tables/figure2_gap.csv": "tables/f02_gap.csv",
    "tables/figure6_error_analysis.csv": "tables/f06_error_analysis.csv",
}


# Wall-clock time measured while the build ran (the non-LLM runs' latency; a replayed LLM call keeps its
# recorded model seconds, so those are not here). None: the whole table is computed from it (the
# latency knapsack's choices follow the measured costs).
MEASURED: dict[str, tuple[str, ...] | None] = {
    "tables/core_live_cost.csv": ("model_s_per_turn",),
    "tables/table29_judge_cost.csv": ("wall_s", "latency_p50_s", "latency_p90_s", "total_s"),
    "tables/oracle_knapsack.csv": None,
}


def differs_only_in_measured(key: str, a: Path, b: Path) -> bool:
    """Whether ``a`` and ``b`` are equal once :data:`MEASURED`'s columns of ``key`` are left out."""
    if key not in MEASURED:
        return False
    columns = MEASURED[key]
    if columns is None:
        return True
    fa, fb = pd.read_csv(a, dtype=str), pd.read_csv(b, dtype=str)
    if list(fa.columns) != list(fb.columns) or not set(columns) <= set(fa.columns):
        return False
    return fa.drop(columns=list(columns)).equals(fb.drop(columns=list(columns)))


def files(root: Path) -> dict[str, Path]:
    """``<subdir>/<name>.csv`` → path, for every CSV directly under ``root``'s :data:`SUBDIRS`."""
    return {f"{sub}/{p.name}": p for sub in SUBDIRS for p in sorted((root / sub).glob("*.csv"))}


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def first_difference(a: Path, b: Path) -> str:
    """``line N: <A line> | <B line>`` for the first line that differs (or the length)."""
    la, lb = a.read_bytes().split(b"\n"), b.read_bytes().split(b"\n")
    for n, (x, y) in enumerate(zip(la, lb), 1):
        if x != y:
            return f"line {n}: {x.decode(errors='replace')[:160]!r} | {y.decode(errors='replace')[:160]!r}"
    return f"one is a prefix of the other ({len(la)} vs {len(lb)} lines)"


MEASURED_LINE = "measured  "


def compare(a: Path, b: Path, renames: Mapping[str, str] = RENAMES) -> list[str]:
    """One report line per difference (empty: identical), then one per file that differs only in
    :data:`MEASURED` wall-clock columns (starting with :data:`MEASURED_LINE`; not a difference)."""
    old, new = files(a), files(b)
    old = {renames.get(k, k): v for k, v in old.items()}
    lines = [f"removed   {k}" for k in sorted(set(old) - set(new))]
    lines += [f"added     {k}" for k in sorted(set(new) - set(old))]
    timing = []
    for key in sorted(set(old) & set(new)):
        if sha256(old[key]) == sha256(new[key]):
            continue
        if differs_only_in_measured(key, old[key], new[key]):
            what = ", ".join(MEASURED[key] or ("every column",))
            timing.append(f"{MEASURED_LINE}{key}: differs only in this machine's wall-clock time ({what})")
        else:
            lines.append(f"different {key}: {first_difference(old[key], new[key])}")
    return lines + timing


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("a", type=Path, help="results directory before (e.g. /tmp/before)")
    parser.add_argument("b", type=Path, help="results directory after (e.g. results/smoke)")
    parser.add_argument("--renames", type=Path, help="YAML of old.csv: new.csv (paths under the results dir)")
    args = parser.parse_args(argv)
    for d in (args.a, args.b):
        if not d.is_dir():
            print(f"identical.py: not a directory: {d}", file=sys.stderr)
            return 2
    renames = RENAMES if args.renames is None else (yaml.safe_load(args.renames.read_text()) or {})
    lines = compare(args.a, args.b, renames)
    differences = [line for line in lines if not line.startswith(MEASURED_LINE)]
    n = len(set(files(args.a)) | set(files(args.b)))
    print("\n".join(lines) if differences else "\n".join([f"identical: {n} CSV file(s)", *lines]))
    renamed = sum(1 for k in files(args.a) if k in renames)
    print(f"({renamed} file(s) compared under a new name)")
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main())
