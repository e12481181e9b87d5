"""Human evaluation chapter: Tables 10–15 twins from collected labels (seed 000 §7.1, App. K).

Reads only ``<results_dir>/human/`` — the output of ``trace-crs human agree`` (one parquet per
table and ``summary.json``), which ``make paper HUMAN_LABELS=… HUMAN_KEY=…`` writes
(mk/paper.mk; without ``HUMAN_LABELS`` make removes an earlier analysis, so it is never shown
stale).  Without it every "ours" cell is "not run" and the page shows the paper's tables and how
to run a study.  ``summary.json["source"]`` says whether the labels come from a study
or from the simulated annotators of the test fixture; :func:`status` puts that in words, so a
fixture is never shown as a result.  The page's table CSV (:data:`NAME`) is Table 10 reported
vs ours (:func:`table10`; "ours" empty without labels).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd

from trace_crs.human.labels import ERROR_CATEGORIES, ERROR_TEXT
from trace_crs.report import compare, figures, paper

NAME = "human_eval"  # tables/human_eval.csv, written by the notebook: :func:`table10` (Table 10)
PAPER10 = "table10_human_eval"
# paper column of Table 10 -> (column of ``table10.parquet``, header shown in the book)
TABLE10: dict[str, tuple[str, str]] = {
    "Informativeness_mean": ("info_mean", "Info."),
    "Naturalness_mean": ("nat_mean", "Nat."),
    "Supported": ("supported", "Supp."),
    "Partial": ("partial", "Part."),
    "NotSupported": ("not_supported", "Not S."),
    "CitationPrecision": ("cite_prec", "Cite. Prec."),
}
TABLE10_COLUMNS = {paper_col: ours for paper_col, (ours, _) in TABLE10.items()}
TABLE10_HEADERS = {paper_col: header for paper_col, (_, header) in TABLE10.items()}
PAPER_CLAIMS = {
    "mean_alpha": ("App. K.2", "all-five-annotator mean Krippendorff alpha (baseline for leave-out table)"),
    "jaccard": ("App. K.3", "Task 2 mean pairwise Jaccard on POI selection"),
    "strict_majority": ("App. K.3", "Task 2 dialogues with strict-majority agreement"),
}
#: error category -> its printed share of the 90 items (App. K.2 prose, headline_claims)
PAPER_ERRORS = {
    "too_vague": "error category 'too vague', share of 90 items (%)",
    "irrelevant_citation": "error category 'irrelevant citation', share of 90 items (%)",
    "wrong_poi": "error category 'wrong POI', share of 90 items (%)",
    "factual_error": "error category 'factual error', share of 90 items (%)",
    "no_errors": "responses judged error-free (%)",
}
#: Table 10 in two parts that each fit the text column (present.axes)
TABLE10_AXES = {
    "Likert means": ("Info.", "Nat."),
    "Majority-vote quote labels": ("Supp.", "Part.", "Not S.", "Cite. Prec."),
}
TABLE10_COUNTS = ("Supported", "Partial", "NotSupported")  # majority-vote quote counts
#: display headers of the leave-out and annotator tables, the paper's CSV columns and ours alike
HEADERS = {
    "drop_type": "Drop",
    "Dropped": "Dropped",
    "dropped": "Dropped",
    "n_annotators": "n annotators",
    "alpha_Info": "α info.",
    "alpha_info": "α info.",
    "alpha_Nat": "α nat.",
    "alpha_nat": "α nat.",
    "alpha_Cite": "α cite",
    "alpha_cite": "α cite",
    "alpha_Err": "α errors",
    "alpha_err": "α errors",
    "Mean_alpha": "Mean α",
    "mean_alpha": "Mean α",
    "mean_alpha_rel_change": "Mean α rel. change",
    "annotator": "Annotator",
    "n_items": "n items",
    "Info_mean": "Info. mean",
    "info_mean": "Info. mean",
    "Nat_mean": "Nat. mean",
    "nat_mean": "Nat. mean",
    "Info_dev": "Info. dev.",
    "info_dev": "Info. dev.",
    "Nat_dev": "Nat. dev.",
    "nat_dev": "Nat. dev.",
    "FlagRate_pct": "Flag rate %",
    "flag_rate_pct": "Flag rate %",
    "AvgCats": "Avg. cats",
    "avg_cats": "Avg. cats",
}
#: the screenshots of ``make human-screens`` (trace_crs.human.screens): name -> (caption, alt text)
SCREENS = {
    "human_task1": (
        "Task 1 in the annotation tool: rate one system response (demonstration item, some fields filled in).",
        "Screenshot of the annotation tool's Task 1 page: the dialogue so far, System B's response with three "
        "quoted phrases, the referenced reviews, Supported / Partial / Not supported buttons for each quote, "
        "the eight-item error checklist, informativeness and naturalness from 1 to 5, and a comment box.",
    ),
    "human_task2": (
        "Task 2 in the annotation tool: pick 1–3 candidates and write a cited recommendation (demonstration item).",
        "Screenshot of the annotation tool's Task 2 page: the dialogue so far and the current request, four "
        "candidate places with stars, categories, price and their reviews, two of them ticked, an Add quote "
        "button, and the recommendation box holding a sentence that quotes a review.",
    ),
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
    """The tables ``summary.json`` lists, by name (empty when there is none): a parquet left
    over from an earlier analysis (a ``task2`` table when the new labels have no Task 2) is
    never read."""
    info = summary(results_dir)
    if info is None:
        return {}
    return {name: pd.read_parquet(human_dir(results_dir) / f"{name}.parquet") for name in info["tables"]}


def status(info: dict[str, Any] | None) -> str:
    """One paragraph (Markdown) on what the "ours" columns are."""
    if info is None:
        return (
            "**No human labels are configured for this profile**, so every *ours* cell reads "
            '"not run" and only the paper\'s numbers are shown. Run a study as described at the end of this page and '
            "rebuild with `make paper HUMAN_LABELS=<labels.jsonl> HUMAN_KEY=<key.jsonl>`."
        )
    sha = info.get("labels_sha256")
    what = f"{info.get('n_annotators')} annotators, {info.get('n_items')} Task 1 items, labels `{info.get('labels')}`"
    what += f" (sha256 `{sha[:12]}`)" if sha else ""
    if info.get("source") == "simulated":
        return (
            "**These are fixture labels from simulated annotators (the test fixture "
            "`tests/fixtures/human`), not a human study.** They exercise the analysis end to end; "
            f"no number below says anything about the systems ({what})."
        )
    return f"Labels of a human study: {what}."


def screenshot(name: str, figures_dir: str | Path = "figures") -> None:
    """Show ``<figures_dir>/<name>.png`` with its caption and alt text (:data:`SCREENS`) as a
    book figure (trace_crs.report.figures.META_KEY; ``make human-screens`` writes the file)."""
    from IPython.display import Image, display

    caption, alt = SCREENS[name]
    path = Path(figures_dir) / f"{name}.png"
    if not path.is_file():
        raise FileNotFoundError(f"{path}: run `make human-screens` (the page's screenshots)")
    info = {"caption": caption, "alt": alt, "name": f"fig-{name.replace('_', '-')}"}
    display(Image(filename=str(path)), metadata={figures.META_KEY: info})


def frame(frames: dict[str, pd.DataFrame], name: str) -> pd.DataFrame:
    """Our table ``name`` under the headers the paper's twin uses (:data:`HEADERS`; the flag rate
    in percent, as Table 11 prints it), or one "not run" row when there are no labels (or too
    few annotators)."""
    df = frames.get(name)
    if df is None or df.empty:
        why = "no human labels for this profile" if not frames else "too few annotators or items for this table"
        return pd.DataFrame({"Ours": [f"not run: {why}"]})
    if "flag_rate" in df:
        df = df.assign(flag_rate=df["flag_rate"] * 100).rename(columns={"flag_rate": "flag_rate_pct"})
    return df.rename(columns=HEADERS)


def table10(frames: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """Table 10 reported vs ours (long frame for ``present.comparison``)."""
    ours = frames["table10"].set_index("baseline") if "table10" in frames else pd.DataFrame()
    long = compare.side_by_side(paper.table(PAPER10), ours, TABLE10_COLUMNS)
    long = long.assign(column=long["column"].map(TABLE10_HEADERS))
    # quote counts are integers: shown as "40", not "40.000" (present.number formats ints as ints)
    counts = long["column"].isin([TABLE10_HEADERS[c] for c in TABLE10_COUNTS])
    for col in ("paper", "ours", "diff"):
        long[col] = long[col].astype(object)
        long.loc[counts, col] = long.loc[counts, col].map(_whole)
    return long


def _whole(value: Any) -> Any:
    """A whole-number float as ``int``; anything else unchanged."""
    return int(value) if isinstance(value, float) and value.is_integer() else value


def paper_table(name: str) -> pd.DataFrame:
    """A printed App. K table with numbers as numbers, :data:`HEADERS` and without the columns
    whose every cell was lost in text extraction."""
    df = paper.table(name)
    for col in df.columns[1:]:
        converted = paper.numeric(df[col])
        if converted.notna().any():
            df[col] = converted
    empty = [c for c in df.columns if df[c].isna().all() or (df[c].astype(str).str.strip() == "").all()]
    return df.drop(columns=empty).rename(columns=HEADERS)  # a column lost in extraction is not shown


def errors(frames: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """Percentage of items on which a strict majority checked each error category, one column
    per scope (all, each baseline), beside the paper's printed shares of all 90 items (App. K.2
    prose: five categories; "—" where it printed none)."""
    printed = {c: paper.numeric(pd.Series([paper.claim("App. K.2", text)])).iloc[0] for c, text in PAPER_ERRORS.items()}
    cats = list(ERROR_CATEGORIES)  # the checklist's order, "No errors" last
    out = pd.DataFrame({"Category": [ERROR_TEXT[c] for c in cats], "Paper, all (%)": [printed.get(c) for c in cats]})
    if "errors" not in frames:
        return out.assign(Ours="not run")
    wide = frames["errors"].pivot(index="category", columns="scope", values="share") * 100
    wide = wide.reindex(cats)
    wide.columns = [f"{'All' if c == 'all' else compare.label(c)} (%)" for c in wide.columns]
    first = ["All (%)"] if "All (%)" in wide.columns else []
    return pd.concat([out, wide[first + [c for c in wide.columns if c not in first]].reset_index(drop=True)], axis=1)


# Table 14: what §7.1 and App. K.3 say in words of each cell whose value the extraction lost
# (the sign, and the order among GS, CGS and CD for citation precision); other cells: nothing.
PAPER_T14: dict[tuple[str, str], str] = {
    ("GS", "citation precision"): "+ (strongest of the three)",
    ("CGS", "citation precision"): "+ (below GS: damped by the CD/PC gates)",
    ("CD", "citation precision"): "+ (weakest of the three)",
    ("GS", "informativeness"): "−",
    ("CD", "informativeness"): "−",
}
PAPER_T14_COLUMN = "paper (§7.1, K.3, in words)"
LOST = "value lost in extraction"


UNRESOLVED = "not resolved (interval spans 0)"


def _sign_agrees(printed: str, r: float, low: float, high: float) -> str:
    """Our sign against the paper's words: decided only when our interval excludes 0."""
    if not printed.startswith(("+", "−")) or pd.isna(r):
        return "—"
    if pd.isna(low) or pd.isna(high) or low <= 0 <= high:
        return UNRESOLVED
    return "yes" if (r > 0) == printed.startswith("+") else "no"


def correlations(frames: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """Table 14 twin: metric × human rating, Spearman and Kendall with bootstrap intervals, beside
    what the paper's prose says of each cell (:data:`PAPER_T14`) and whether our sign agrees."""
    if frames.get("correlations") is None or frames["correlations"].empty:
        printed = pd.DataFrame([{"metric": m, "human": h, PAPER_T14_COLUMN: v} for (m, h), v in PAPER_T14.items()])
        return printed.assign(Ours=frame(frames, "correlations")["Ours"].iloc[0])
    df = frames["correlations"].copy()
    df["metric"] = df["metric"].str.upper()
    df["human"] = df["human"].map(HUMAN_LABELS).fillna(df["human"])
    df[PAPER_T14_COLUMN] = [PAPER_T14.get((m, h), LOST) for m, h in zip(df["metric"], df["human"], strict=True)]
    df["sign agrees"] = [
        _sign_agrees(p, r, lo, hi)
        for p, r, lo, hi in zip(df[PAPER_T14_COLUMN], df["r"], df["ci_low"], df["ci_high"], strict=True)
    ]
    return df[["metric", "human", "method", PAPER_T14_COLUMN, "r", "ci_low", "ci_high", "n", "sign agrees"]]


def paper_leave_out(kind: str) -> pd.DataFrame:
    """The printed leave-out α table of ``kind`` (``single``: Table 12, ``pair``: Table 13)."""
    df = paper_table("table13b_leave_out")
    column = HEADERS["drop_type"]
    return df[df[column] == kind].drop(columns=[column]).reset_index(drop=True)


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
