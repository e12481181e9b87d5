"""Why one clarifying question moves live TSR (the CoRE chapter's "Did asking help?"): the paired
difference of the non-LLM rankers' live runs with one question allowed (``live/live_ask``) and
without (``live/live``) — same dialogue, same simulated user, same pool — split into two parts.

* **The turn budget.**  A question is a system turn (TravelBench counts it as one, seed 003 §3),
  so within ``max_turns`` system turns a system that asked ``q`` questions recommends
  ``max_turns − q`` times.  ``same_recs`` is the no-ask run's success within its first
  ``max_turns − q`` recommendations (``q``: the questions the asking run asked in that dialogue):
  the TSR it would have had with as many recommendations as the asking run had (a ranker's
  system turns are all recommendations when it does not ask; ``max_turns`` is the asking run's).
* **The answer.**  ``with − same_recs``: what the user's answer bought given the same number of
  recommendations.  ``with − without = (with − same_recs) − (without − same_recs)``: the answer's
  gain minus the successes the spent turn cost.

Each comparison is a paired dialogue bootstrap (:func:`trace_crs.stats.bootstrap.bootstrap_pairs`).
Diagnostics per baseline (:func:`diagnostics`): which facets the questions were about, how often
the question was about a facet the
user's profile leaves open (the user then says it has no preference, :mod:`trace_crs.live.ask`),
how often the first recommendation after the answer differs from the no-ask run's first one, and
how often each first recommendation was accepted.  Reads only the saved transcripts and
``live_scores.parquet`` of both runs.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from trace_crs import DEFAULT_SEED
from trace_crs.dialogues.constraints import constraints_of
from trace_crs.kb.store import iter_jsonl
from trace_crs.live.ask import ASK_ACTION, asked_facets
from trace_crs.live.simulator import about
from trace_crs.report import compare
from trace_crs.stats.bootstrap import N_BOOT, bootstrap_pairs

NAME = "core_live_asking_cost"
DIAGNOSTICS = "core_live_asking_diagnostics"
NAMES = {"table": NAME, "diagnostics": DIAGNOSTICS}  # every table CSV the page writes
RUNS: tuple[str, str] = ("live_ask", "live")  # (with one question allowed, without)
# (a, b) of each comparison: "with" / "without" / "same_recs" sides of one baseline (module docstring)
COMPARISONS: dict[str, tuple[str, str]] = {
    "total": ("with", "without"),
    "answer": ("with", "same_recs"),
    "budget": ("same_recs", "without"),
}
COLUMNS = ["Baseline", "baseline", "comparison", "n", "tsr_a", "tsr_b", "delta", "ci_low", "ci_high", "verdict"]
DIAG_COLUMNS = [
    "Baseline",
    "baseline",
    "n",
    "questions_per_dialogue",
    "asked_facets",
    "asked_open_share",
    "first_rec_changed_share",
    "first_accept_without",
    "first_accept_with",
]


def _transcripts(results_dir: Path, run: str, name: str) -> dict[str, dict[str, Any]]:
    path = results_dir / "live" / run / "transcripts" / f"{name}.jsonl"
    return {str(r["dialogue_id"]): r for _, r in iter_jsonl(path)}


def _sides(without: pd.DataFrame, with_ask: pd.DataFrame, max_turns: int) -> pd.DataFrame:
    """Per dialogue of one baseline: TSR ``with``, ``without`` and ``same_recs`` (docstring)."""
    both = with_ask[["dialogue_id", "tsr", "n_questions"]].merge(
        without[["dialogue_id", "tsr", "t2r"]], on="dialogue_id", suffixes=("_with", "_without"), validate="1:1"
    )
    same = (both["tsr_without"] > 0) & (both["t2r"] <= max_turns - both["n_questions"])
    return pd.DataFrame(
        {
            "dialogue_id": both["dialogue_id"],
            "with": both["tsr_with"],
            "without": both["tsr_without"],
            "same_recs": same.astype(float),
        }
    )


def _first(turns: list[dict[str, Any]], action: str) -> int | None:
    return next((i for i, t in enumerate(turns) if t["role"] == "system" and t["action"] == action), None)


def first_recommendation(transcript: dict[str, Any]) -> tuple[list[str], bool]:
    """The POIs of a transcript's first ``recommend`` turn and whether the user accepted them."""
    turns = transcript["turns"]
    i = _first(turns, "recommend")
    if i is None:
        return [], False
    reply = turns[i + 1] if i + 1 < len(turns) else {}
    return list(turns[i]["referenced_poi_ids"]), reply.get("action") == "accept"


def asked_open(transcript: dict[str, Any]) -> bool | None:
    """Whether the transcript's first question was only about facets its user's profile leaves
    open (the user answers "no preference"); ``None`` when nothing recognisable was asked."""
    i = _first(transcript["turns"], ASK_ACTION)
    facets = asked_facets(transcript["turns"][i]["text"]) if i is not None else []
    if not facets:
        return None
    held = {f for c in constraints_of(transcript["scenario"]["hidden_preferences"]) for f in about(c)}
    return not held.intersection(facets)


def asked_mix(transcripts: list[dict[str, Any]]) -> str:
    """The facets the questions were about, most asked first: ``"features 3, ambience 1"``."""
    counts = Counter(
        f for t in transcripts for q in t["turns"] if q["action"] == ASK_ACTION for f in asked_facets(q["text"])
    )
    return ", ".join(f"{f} {n}" for f, n in sorted(counts.items(), key=lambda x: (-x[1], x[0])))


def diagnostics(name: str, with_ask: dict[str, dict[str, Any]], without: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """One baseline's diagnostic row (module docstring) over the dialogues of both runs."""
    ids = sorted(set(with_ask) & set(without))
    asked = [a for a in (asked_open(with_ask[d]) for d in ids) if a is not None]
    firsts = [(first_recommendation(with_ask[d]), first_recommendation(without[d])) for d in ids]
    mean = lambda xs: float(np.mean(xs)) if len(xs) else float("nan")  # noqa: E731
    return {
        "Baseline": compare.label(name),
        "baseline": name,
        "n": len(ids),
        "questions_per_dialogue": mean([sum(t["action"] == ASK_ACTION for t in with_ask[d]["turns"]) for d in ids]),
        "asked_facets": asked_mix([with_ask[d] for d in ids]),
        "asked_open_share": mean(asked),
        "first_rec_changed_share": mean([w[0] != wo[0] for w, wo in firsts]),
        "first_accept_without": mean([wo[1] for _, wo in firsts]),
        "first_accept_with": mean([w[1] for w, _ in firsts]),
    }


def load(results_dir: str | Path, n_boot: int = N_BOOT, seed: int = DEFAULT_SEED) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``(comparisons, diagnostics)``: one row per (baseline, :data:`COMPARISONS` key) and one
    per baseline; both empty when either run is missing."""
    root = Path(results_dir)
    frames = [root / "live" / run / "live_scores.parquet" for run in RUNS]
    if not all(p.exists() for p in frames):
        return pd.DataFrame(columns=COLUMNS), pd.DataFrame(columns=DIAG_COLUMNS)
    with_ask, without = (pd.read_parquet(p) for p in frames)
    rows, diag = [], []
    for name in sorted(set(with_ask["baseline"]) & set(without["baseline"])):
        asking = _transcripts(root, RUNS[0], name)
        max_turns = max((int(t["metadata"]["live"]["max_turns"]) for t in asking.values()), default=0)
        sides = _sides(without[without["baseline"] == name], with_ask[with_ask["baseline"] == name], max_turns)
        long = sides.melt(id_vars="dialogue_id", var_name="baseline", value_name="tsr")
        pairs = [(a, b, "tsr") for a, b in COMPARISONS.values()]
        got = bootstrap_pairs(long, pairs, n_boot=n_boot, seed=seed, source="live_scores.parquet")
        for comparison, (_, r) in zip(COMPARISONS, got.iterrows(), strict=True):
            rows.append(
                {
                    "Baseline": compare.label(name),
                    "baseline": name,
                    "comparison": comparison,
                    "n": int(r["n_dialogues"]),
                    "tsr_a": float(sides[r["a"]].mean()),
                    "tsr_b": float(sides[r["b"]].mean()),
                    **{k: r[k] for k in ("delta", "ci_low", "ci_high", "verdict")},
                }
            )
        diag.append(diagnostics(name, asking, _transcripts(root, RUNS[1], name)))
    return pd.DataFrame(rows, columns=COLUMNS), pd.DataFrame(diag, columns=DIAG_COLUMNS)


def facts(cmp: pd.DataFrame, diag: pd.DataFrame) -> dict[str, float | int]:
    """Numbers cited in the chapter's prose: dialogues per baseline, the range over baselines of
    each comparison's delta, and of the diagnostics (NaN when not run)."""
    out: dict[str, float | int] = {"cost_n": int(cmp["n"].max()) if not cmp.empty else 0}
    for comparison in COMPARISONS:
        d = cmp.loc[cmp["comparison"] == comparison, "delta"].astype(float)
        out[f"cost_{comparison}_min"] = float(d.min()) if len(d) else float("nan")
        out[f"cost_{comparison}_max"] = float(d.max()) if len(d) else float("nan")
    for col in ("asked_open_share", "first_rec_changed_share"):
        v = diag[col].astype(float)
        out[f"cost_{col}_min"] = float(v.min()) if len(v) else float("nan")
        out[f"cost_{col}_max"] = float(v.max()) if len(v) else float("nan")
    return out
