"""Human evaluation chapter: Tables 10–15 twins from collected labels (seed 000 §7.1, App. K).

Reads only ``<results_dir>/human/`` — the output of ``trace-crs human agree`` (one parquet per
table and ``summary.json``), which ``make paper HUMAN_LABELS=… HUMAN_KEY=…`` writes
(mk/paper.mk).  Without it every "ours" cell is "not run" and the page shows the paper's tables
and how to run a study.  ``summary.json["source"]`` says whether the labels come from a study
or from the simulated annotators of the test fixture; :func:`status` puts that in words, so a
fixture is never shown as a result.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd

from trace_crs.human.labels import ERROR_TEXT
from trace_crs.report import compare, paper

NAME = "human_eval"
PAPER10 = "table10_human_eval"
# paper column of Table 10 -> column of ``table10.parquet``
TABLE10_COLUMNS = {
    "Informativeness_mean": "info_mean",
    "Naturalness_mean": "nat_mean",
    "Supported": "supported",
    "Partial": "partial",
    "NotSupported": "not_supported",
    "CitationPrecision": "cite_prec",
}
PAPER_CLAIMS = {
    "mean_alpha": ("App. K.2", "all-five-annotator mean Krippendorff alpha (baseline for leave-out table)"),
    "jaccard": ("App. K.3", "Task 2 mean pairwise Jaccard on POI selection"),
    "strict_majority": ("App. K.3", "Task 2 dialogues with strict-majority agreement"),
}
TABLE10_HEADERS = {
    "Informativeness_mean": "Info.",
    "Naturalness_mean": "Nat.",
    "Supported": "Supp.",
    "Partial": "Part.",
    "NotSupported": "Not S.",
    "CitationPrecision": "Cite. Prec.",
}
HUMAN_LABELS = {
    "cite_prec": "citation precision",
    "info": "informativeness",
    "nat": "naturalness",
    "error_free": "error-free",
}


def human_dir(results_dir: str | Path) -> Path:
    """Where ``trace-crs human agree`` wrote this profile's tables."""
    return Path(results_dir) / "human"


def summary(results_dir: str | Path) -> dict[str, Any] | None:
    """``summary.json`` of the analysis, None when no labels were analysed."""
    path = human_dir(results_dir) / "summary.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None


def load(results_dir: str | Path) -> dict[str, pd.DataFrame]:
    """Every table of the analysis by name (empty when there is none)."""
    if summary(results_dir) is None:
        return {}
    return {p.stem: pd.read_parquet(p) for p in sorted(human_dir(results_dir).glob("*.parquet"))}


def status(info: dict[str, Any] | None) -> str:
    """One paragraph (Markdown) on what the "ours" columns are."""
    if info is None:
        return (
            "**No human labels are configured for this profile**, so every *ours* cell reads "
            '"not run" and only the paper\'s numbers are shown. Run a study as described above and '
            "rebuild with `make paper HUMAN_LABELS=<labels.jsonl> HUMAN_KEY=<key.jsonl>`."
        )
    what = (
        f"{info.get('n_annotators')} annotators, {info.get('n_items')} Task 1 items, " f"labels `{info.get('labels')}`"
    )
    if info.get("source") == "simulated":
        return (
            "**These are fixture labels from simulated annotators (the test fixture "
            "`tests/fixtures/human`), not a human study.** They exercise the analysis end to end; "
            f"no number below says anything about the systems ({what})."
        )
    return f"Labels of a human study: {what}."


def frame(frames: dict[str, pd.DataFrame], name: str) -> pd.DataFrame:
    """Our table ``name``, or one "not run" row when there are no labels (or too few annotators)."""
    df = frames.get(name)
    return df if df is not None and not df.empty else pd.DataFrame({"ours": ["not run"]})


def table10(frames: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """Table 10 reported vs ours (long frame for ``present.comparison``)."""
    ours = frames["table10"].set_index("baseline") if "table10" in frames else pd.DataFrame()
    long = compare.side_by_side(paper.table(PAPER10), ours, TABLE10_COLUMNS)
    return long.assign(column=long["column"].map(TABLE10_HEADERS))


def paper_table(name: str) -> pd.DataFrame:
    """A printed App. K table with numbers as numbers."""
    df = paper.table(name)
    for col in df.columns[1:]:
        converted = paper.numeric(df[col])
        if converted.notna().any():
            df[col] = converted
    return df


def errors(frames: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """Strict-majority share of each error category, one column per scope (all, each baseline)."""
    if "errors" not in frames:
        return frame(frames, "errors")
    df = frames["errors"]
    wide = df.pivot(index="category", columns="scope", values="share")
    wide.index = pd.Index([ERROR_TEXT.get(c, c) for c in wide.index], name="category")
    wide.columns = [c if c == "all" else compare.label(c) for c in wide.columns]
    return wide.reset_index()


def correlations(frames: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """Table 14 twin: metric × human rating, Spearman and Kendall with bootstrap intervals."""
    if frames.get("correlations") is None or frames["correlations"].empty:
        return frame(frames, "correlations")
    df = frames["correlations"].copy()
    df["metric"] = df["metric"].str.upper()
    df["human"] = df["human"].map(HUMAN_LABELS).fillna(df["human"])
    return df[["metric", "human", "method", "r", "ci_low", "ci_high", "n"]]


def paired(frames: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """Table 15 twin: per-dialogue paired t-tests (labels, not keys)."""
    if "paired" not in frames:
        return frame(frames, "paired")
    df = frames["paired"].copy()
    df["pair"] = [f"{compare.label(a)} vs. {compare.label(b)}" for a, b in zip(df["a"], df["b"], strict=True)]
    df["metric"] = df["metric"].map(lambda m: HUMAN_LABELS.get(m, m.upper()))
    keep = [c for c in ("metric", "pair", "n", "mean_a", "mean_b", "mean_diff", "t", "p_value") if c in df]
    return df[keep]


def facts(frames: dict[str, pd.DataFrame]) -> dict[str, Any]:
    """Numbers the prose cites (NaN when there are no labels: "not computed")."""
    a = frames["alphas"].iloc[0] if "alphas" in frames else pd.Series(dtype=float)
    t2 = frames["task2"].iloc[0] if "task2" in frames else pd.Series(dtype=float)
    get = lambda s, k: float(s[k]) if k in s and pd.notna(s[k]) else float("nan")  # noqa: E731
    out: dict[str, Any] = {f"alpha_{k}": get(a, f"alpha_{k}") for k in ("info", "nat", "cite", "err")}
    out |= {"mean_alpha": get(a, "mean_alpha"), "mean_jaccard": get(t2, "mean_jaccard")}
    out |= {
        "n_annotators": int(a["n_annotators"]) if "n_annotators" in a else 0,
        "n_items": int(a["n_items"]) if "n_items" in a else 0,
        "n_pairs": int(t2["n_pairs"]) if "n_pairs" in t2 else 0,
        "n_strict_majority": int(t2["n_strict_majority"]) if "n_strict_majority" in t2 else 0,
        "n_task2_dialogues": int(t2["n_dialogues"]) if "n_dialogues" in t2 else 0,
    }
    out |= {f"paper_{k}": paper.claim(section, text) for k, (section, text) in PAPER_CLAIMS.items()}
    return out
