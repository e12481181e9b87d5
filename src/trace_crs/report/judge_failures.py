"""How often a CoRE judge failed, shown beside every judge table (a judge that finishes: CoRE
App. E's bounded rationales, ``trace_crs.judge.core``'s re-asks with a larger budget).

Per system, over its judged transcripts (``trace-crs judge core`` records, their ``attempts``
and ``usage`` blocks, :mod:`trace_crs.judge.records`):

* ``not_rated`` — share of the 12 factor ratings still empty after every re-ask (a transcript
  with one has no CoRE-Avg);
* ``unusable`` — share of the judge's replies that could not be used (no parseable 0–4 rating:
  unparseable, out of range or empty) — the parse-failure rate;
* ``truncated`` — share of replies cut at ``max_tokens`` (the rating may still have been read);
* ``replies_per_rating`` — replies per factor rating (1: every factor at the first reply);
* ``judge_s`` — the judge's model seconds per transcript (``usage.model_s``).

For live conversations (:func:`system_fallbacks`) the systems' own LLM failures stand beside
them: ``fallback_rate``, the share of system turns answered by the Popularity fallback after the
system's LLM call failed (Appendix F), from the live outcome rows.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from trace_crs.judge.factors import FACTORS
from trace_crs.kb.store import iter_jsonl
from trace_crs.report import compare

NAME = "core_live_failures"  # the table CSV of :func:`live` (the CoRE page)
COLUMNS = [
    "Baseline",
    "baseline",
    "n_transcripts",
    "not_rated",
    "unusable",
    "truncated",
    "replies_per_rating",
    "judge_s",
]


def counts(path: str | Path) -> pd.DataFrame:
    """One row per judged transcript: system, ratings missing, replies, unusable and cut replies,
    judge seconds (module docstring)."""
    rows = []
    for _, rec in iter_jsonl(path):
        att = rec.get("attempts") or {}
        rows.append(
            {
                "system": rec.get("system") or "",
                "missing": sum((rec.get("factors") or {}).get(f) is None for f in FACTORS),
                "replies": sum((att.get("attempts") or {}).values()),
                "unusable": sum((att.get("failed_attempts") or {}).values()),
                "cut": sum((att.get("truncated") or {}).values()),
                "judge_s": float((rec.get("usage") or {}).get("model_s") or 0.0),
            }
        )
    return pd.DataFrame(rows, columns=["system", "missing", "replies", "unusable", "cut", "judge_s"])


def load(path: str | Path) -> pd.DataFrame:
    """Per-system failure rates of one judged file (module docstring); empty when it is absent.
    Rates over no replies (records without an ``attempts`` block) are NaN."""
    if not Path(path).exists():
        return pd.DataFrame(columns=COLUMNS)
    g = counts(path).groupby("system", sort=True)
    s = g.sum()
    n = g.size()
    replies = s["replies"].where(s["replies"] > 0)
    out = pd.DataFrame(
        {
            "baseline": s.index,
            "n_transcripts": n.to_numpy(),
            "not_rated": (s["missing"] / (n * len(FACTORS))).to_numpy(),
            "unusable": (s["unusable"] / replies).to_numpy(float),
            "truncated": (s["cut"] / replies).to_numpy(float),
            "replies_per_rating": (replies / (n * len(FACTORS))).to_numpy(float),
            "judge_s": (s["judge_s"] / n).to_numpy(),
        }
    )
    out.insert(0, "Baseline", [compare.label(str(b)) for b in out["baseline"]])
    return out[COLUMNS].reset_index(drop=True)


def system_fallbacks(live_dirs: Sequence[str | Path]) -> pd.Series:
    """Baseline → share of its live system turns answered by the Popularity fallback (the first
    live run holding the baseline wins); baselines of no finished run are absent."""
    out: dict[str, float] = {}
    for d in live_dirs:
        for path in sorted((Path(d) / "outcomes").glob("*.parquet")):
            o = pd.read_parquet(path, columns=["n_fallbacks", "n_system_turns"])
            turns = float(o["n_system_turns"].sum())
            out.setdefault(path.stem, float(o["n_fallbacks"].sum()) / turns if turns else float("nan"))
    return pd.Series(out, name="fallback_rate", dtype=float)


def live(results_dir: str | Path, judge: str = "core_a", runs: Sequence[str] = ("live", "live_llm")) -> pd.DataFrame:
    """:func:`load` of the live judge's records with each system's ``fallback_rate`` beside."""
    df = load(Path(results_dir) / "judge" / "live" / f"{judge}.jsonl")
    fb = system_fallbacks([Path(results_dir) / "live" / r for r in runs])
    df["fallback_rate"] = df["baseline"].map(fb).astype(float)
    return df
