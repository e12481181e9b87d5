"""The dialogue corpus checked for what a system could exploit and for how travellers speak
(Table 3's page, after the statistics of :mod:`trace_crs.report.t03_dataset`): the leakage audit
beside the generator before its fixes (:func:`leakage`), the persona slice (:func:`persona_slice`)
and the evidence contract's shares with intervals (:func:`evidence`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from trace_crs import DEFAULT_SEED
from trace_crs.dialogues.schema import load_dialogues
from trace_crs.kb.store import load_kb
from trace_crs.report import results
from trace_crs.stats.bootstrap import N_BOOT

LEAKAGE_BEFORE = Path(__file__).with_name("reference") / "leakage_before.json"


def leakage(dialogues_path: str | Path) -> pd.DataFrame:
    """The corpus audit written by ``trace-crs dialogues leakage`` (``leakage.json`` beside the
    corpus) beside the same audit of the generator before the paraphrase bank and the persona
    prior (``reference/leakage_before.json``, measured once; its provenance is in the file)."""
    import json

    path = results.require(Path(dialogues_path).with_name("leakage.json"), "leakage audit of the corpus")
    now, before = json.loads(path.read_text()), json.loads(LEAKAGE_BEFORE.read_text())
    rows = [
        ("keyword decoder: exact acceptable set (simple)", "decoder", "exact_set_simple"),
        ("keyword decoder: exact acceptable set (strong)", "decoder", "exact_set_strong"),
        ("keyword decoder: hidden-preference items recovered", "decoder", "preference_item_recall"),
    ]
    rows.append(("price ceiling read by Price Alignment = hidden price_max", "decoder", "price_ceiling_recall"))
    out = [
        {"measure": label, "before": before[part].get(key, float("nan")), "this corpus": now[part][key]}
        for label, part, key in rows
    ]
    for facet in now["persona_information"]:
        out.append(
            {
                "measure": f"persona → {facet}: MI above shuffled control (bits)",
                "before": before["persona_information"][facet]["excess_bits"],
                "this corpus": now["persona_information"][facet]["excess_bits"],
            }
        )
    frame = pd.DataFrame(out).set_index("measure")
    frame.attrs["n_rec_turns"] = int(now["decoder"]["rec_turns"])
    return frame


def leakage_facts(df: pd.DataFrame) -> dict[str, Any]:
    """Numbers quoted in the data card (glued)."""
    mi = df[df.index.str.startswith("persona")]["this corpus"]
    return {
        "exact_simple": float(df.iloc[0]["this corpus"]),
        "exact_strong": float(df.iloc[1]["this corpus"]),
        "exact_strong_before": float(df.iloc[1]["before"]),
        "item_recall": float(df.iloc[2]["this corpus"]),
        "price_recall": float(df.iloc[3]["this corpus"]),
        "mi_min": float(mi.min()),
        "mi_min_facet": str(mi.idxmin()).split("→ ")[1].split(":")[0],
        "n_rec_turns": int(df.attrs["n_rec_turns"]),
    }


PERSONA_PAIR = ("persona", "aspect", "recall@1")  # Persona-Grounded = Aspect + persona signals


def persona_slice(
    results_dir: str | Path, run: str = "closed", n_boot: int = N_BOOT, seed: int = DEFAULT_SEED
) -> pd.DataFrame:
    """Persona-Grounded minus Aspect R@1 on the persona-dependent turns (hidden preferences
    include something the persona type's prior favours, ``persona_dependent`` in the per-turn
    scores) and on the rest: a paired dialogue-cluster bootstrap per slice
    (:func:`trace_crs.stats.bootstrap.bootstrap_pairs`; "insufficient n" below its minimum)."""
    from trace_crs.stats.bootstrap import bootstrap_pairs

    a, b, metric = PERSONA_PAIR
    turns = results.load_per_turn(results_dir, run, baselines=[a, b])
    rows = []
    for label, keep in (("persona-dependent", True), ("other", False)):
        part = turns[turns["persona_dependent"] == keep]
        if part.empty:  # e.g. a tiny profile: no dialogue on this side
            rows.append(
                {
                    "slice": label,
                    "n_turns": 0,
                    "n_dialogues": 0,
                    "delta": float("nan"),
                    "ci_low": float("nan"),
                    "ci_high": float("nan"),
                    "verdict": "insufficient n",
                    a: float("nan"),
                    b: float("nan"),
                }
            )
            continue
        row = bootstrap_pairs(part, [PERSONA_PAIR], n_boot, seed, source=f"{run} per-turn scores").iloc[0]
        rows.append(
            {
                "slice": label,
                "n_turns": int(len(part) // 2),
                **row.to_dict(),
                a: float(part.loc[part["baseline"] == a, metric].mean()),
                b: float(part.loc[part["baseline"] == b, metric].mean()),
            }
        )
    return pd.DataFrame(rows).set_index("slice")


# Targets of the evidence contract (data card, "How close are the synthetic reviews to real
# ones?"): a quote grounds in one POI (§2.2); travellers negate; gold honours what they say.
EVIDENCE_TARGETS = {"quote_single": "≥ 0.95", "negated": "≥ 0.10", "disjunctive": "—", "avoid": "0", "either": "0"}


def share_ci(
    frame: pd.DataFrame, metric: str, denominator: str | None, n_boot: int, seed: int
) -> dict[str, float | int]:
    """Share ``Σ metric / Σ denominator`` (or the mean of ``metric``) over dialogue rows with
    its dialogue-cluster bootstrap 95 % interval (:func:`trace_crs.stats.intervals.cluster_mean_ci`).
    When every replicate is equal (no event, or all rows events) the bootstrap interval is a
    point, so the exact Clopper–Pearson interval of ``k`` in ``n`` is given instead
    (statsmodels; rows treated as independent); NaN with no row."""
    from statsmodels.stats.proportion import proportion_confint

    from trace_crs.stats.intervals import cluster_mean_ci

    nan = float("nan")
    if frame.empty:
        return {"share": nan, "ci_low": nan, "ci_high": nan, "k": 0, "n": 0}
    frame = frame.astype({metric: float})
    k = int(frame[metric].sum())
    n = int(frame[denominator].sum()) if denominator else len(frame)
    ci = cluster_mean_ci(frame, metric, n_boot, seed, denominator=denominator)
    low, high = ci["ci_low"], ci["ci_high"]
    if n and high == low:
        low, high = (float(b) for b in proportion_confint(k, n, alpha=0.05, method="beta"))
    return {"share": k / n if n else nan, "ci_low": float(low), "ci_high": float(high), "k": k, "n": n}


def evidence(
    kb_dir: str | Path, dialogues_path: str | Path, n_boot: int = N_BOOT, seed: int = DEFAULT_SEED
) -> pd.DataFrame:
    """Quote specificity and travellers' language of the corpus (``dialogues.stats``): per
    measure the share, its 95 % interval (:func:`share_ci`; quotes cluster in dialogues), the
    events ``k`` out of ``n`` and the target."""
    from trace_crs.dialogues.quotes import quote_owner_counts
    from trace_crs.dialogues.stats import preference_rows

    kb = load_kb(results.require(kb_dir, "KB directory"))
    dialogues = load_dialogues(results.require(dialogues_path, "dialogue corpus"))
    quotes = pd.DataFrame(quote_owner_counts(dialogues, kb), columns=["dialogue_id", "n_pois"])
    quotes = quotes.assign(single=quotes["n_pois"] == 1, quotes=1).groupby("dialogue_id")[["single", "quotes"]]
    prefs = pd.DataFrame(preference_rows(dialogues, kb))
    cells = [
        (
            "quote_single",
            "cited quotes found in exactly one POI's reviews",
            quotes.sum().reset_index(),
            "single",
            "quotes",
        ),
        ("negated", "dialogues with a negated preference", prefs, "negated", None),
        ("disjunctive", "dialogues with a disjunctive preference", prefs, "disjunctive", None),
        ("avoid", "(unrejected gold POI, negated preference) pairs violated", prefs, "avoid_violations", "avoid_pairs"),
        (
            "either",
            "(unrejected gold POI, disjunctive preference) pairs violated",
            prefs,
            "either_violations",
            "either_pairs",
        ),
    ]
    rows = [
        {"key": key, "measure": label, **share_ci(frame, metric, den, n_boot, seed), "target": EVIDENCE_TARGETS[key]}
        for key, label, frame, metric, den in cells
    ]
    return pd.DataFrame(rows).set_index("key")


def evidence_facts(df: pd.DataFrame) -> dict[str, Any]:
    """Numbers of the evidence table quoted in the data card (glued): per row its share,
    interval and ``k``/``n``."""
    out: dict[str, Any] = {}
    for key, row in df.iterrows():
        out |= {f"{key}_share": float(row["share"]), f"{key}_low": float(row["ci_low"])}
        out |= {f"{key}_high": float(row["ci_high"]), f"{key}_k": int(row["k"]), f"{key}_n": int(row["n"])}
    return out


def evidence_display(df: pd.DataFrame) -> pd.DataFrame:
    """The evidence table for the page: each share as ``0.250 [0.18, 0.31]`` (the book's
    interval form, :func:`trace_crs.report.present.interval`), then ``k``, ``n`` and the target."""
    from trace_crs.report import present

    shown = [present.interval(r["share"], r["ci_low"], r["ci_high"]) for _, r in df.iterrows()]
    return pd.DataFrame(
        {"measure": df["measure"].to_list(), "share [95 % interval]": shown, "k": df["k"].to_list()}
        | {"n": df["n"].to_list(), "target": df["target"].to_list()}
    )
