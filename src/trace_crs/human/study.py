"""One call from a labels file to every Table 10–15 twin (seed 000 App. K).

:func:`analyse` returns named tidy frames; ``trace-crs human agree`` writes each as
``<out>/<name>.parquet`` and ``summary.json`` (the marker, written last).
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from trace_crs import DEFAULT_SEED
from trace_crs.errors import DataError
from trace_crs.human.agreement import alphas, annotator_profile, leave_out, task2_agreement
from trace_crs.human.labels import read_labels, task1_frame, task2_frame
from trace_crs.human.validity import (
    HUMAN_COLUMNS,
    error_breakdown,
    item_frame,
    metric_correlations,
    paired_tests,
    table10,
)
from trace_crs.kb.store import iter_jsonl
from trace_crs.stats.bootstrap import N_BOOT

#: the automated grounding metrics Table 14/15 set against the human ratings (paper §7.1, App. K.3)
AUTO_METRICS = ("cgs", "gs", "cd")


def read_key(path: str | Path) -> pd.DataFrame:
    """The sampler's key file: ``item_id, dialogue_id, baseline`` (+ metric columns) per line."""
    path = Path(path)
    rows = []
    for line_no, rec in iter_jsonl(path):
        for field in ("item_id", "baseline"):
            if not isinstance(rec, dict) or not isinstance(rec.get(field), str):
                raise DataError("missing or not a string", file=str(path), line=line_no, field=field)
        for metric in AUTO_METRICS:  # a number, or null (the sample had no --scores)
            value = rec.get(metric)
            if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))):
                raise DataError(f"a number or null, got {value!r}", file=str(path), line=line_no, field=metric)
        rows.append(rec)
    key = pd.DataFrame(rows)
    if key.empty or key["item_id"].duplicated().any():
        raise DataError("empty, or an item_id appears twice", file=str(path), field="item_id")
    unscored = [m for m in AUTO_METRICS if m in key and key[m].isna().all()]
    if unscored:  # `human sample` without --scores: no metric-human correlation can be computed
        import sys

        print(
            f"trace-crs: warning: {path} holds no {'/'.join(unscored)} value (sampled without --scores); "
            "the tables that set metrics against the ratings leave them out",
            file=sys.stderr,
        )
    return key.drop(columns=[c for c in ("system_label", *unscored) if c in key])


def same_items(labels: list, key: pd.DataFrame, labels_path: str | Path, key_path: str | Path | None) -> None:
    """DataError (exit 3) when the labels and the key name different items files (their
    ``items_sha256``; when one side has none they cannot be compared, and a warning says so): the
    key's baselines and scores would be attached to items the annotators never saw."""
    ours = sorted({r.items_sha256 for r in labels if r.items_sha256})
    if len(ours) > 1:
        raise DataError(
            f"labels of {len(ours)} items files ({', '.join(ours)})", file=str(labels_path), field="items_sha256"
        )
    theirs = sorted(set(key["items_sha256"].dropna())) if "items_sha256" in key else []
    if bool(ours) != bool(theirs):  # one side predates provenance: say that it cannot be checked
        import sys

        missing = labels_path if not ours else key_path
        print(
            f"trace-crs: warning: {missing} records no items file (made before labels and keys did): "
            "cannot check that the labels and the key are of the same items",
            file=sys.stderr,
        )
    if ours and theirs and theirs != ours:
        raise DataError(
            f"labels given on the items file with SHA-256 {ours[0]}, but the key {key_path} is of "
            f"{', '.join(theirs)}: give the key `human sample` wrote with those items",
            file=str(labels_path),
            field="items_sha256",
        )


def analyse(
    labels: str | Path, key: str | Path | None = None, n_boot: int = N_BOOT, seed: int = DEFAULT_SEED
) -> dict[str, pd.DataFrame]:
    """Every frame of the chapter from a labels file (and the key file, when labels are blind)."""
    t1_raw, t2_raw = read_labels(labels)
    key_frame = read_key(key) if key else None
    if key_frame is not None:
        same_items([*t1_raw, *t2_raw], key_frame, labels, key)
        key_frame = key_frame.drop(columns=["items_sha256"], errors="ignore")
    t1 = task1_frame(t1_raw, key_frame, source=str(labels))
    items = item_frame(t1)
    metrics = [m for m in AUTO_METRICS if m in items]
    n_ann = t1["annotator"].nunique()
    out = {
        "items": items,
        "table10": table10(items),
        "alphas": pd.DataFrame([{"n_annotators": n_ann, "n_items": int(items.shape[0]), **alphas(t1)}]),
        "annotators": annotator_profile(t1),
        "leave_one_out": leave_out(t1, 1) if n_ann >= 3 else pd.DataFrame(),
        "leave_pair_out": leave_out(t1, 2) if n_ann >= 4 else pd.DataFrame(),
        "errors": error_breakdown(t1),
        "correlations": metric_correlations(items, metrics, HUMAN_COLUMNS, n_boot, seed) if metrics else pd.DataFrame(),
        "paired": paired_tests(items, ["info", "cite_prec", *metrics]),
    }
    if t2_raw:
        out["task2"] = pd.DataFrame([task2_agreement(task2_frame(t2_raw))])
    return out
