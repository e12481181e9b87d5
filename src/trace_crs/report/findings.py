"""One computed sentence per headline finding (paper §6: 1a–1d, 2a–2b, 3a).

Each finding is operationalised as a comparison on this run's aggregate metrics (closed
runs, plus open-set runs for 1b); the verdict and the numbers in the sentence are computed.
``holds`` is None when the run lacks what the finding needs (the sentence says what).
Memory-Aug. is excluded (not session-isolated, as in the paper's ranks).

A verdict needs enough data: when a baseline the finding compares was scored on fewer than
:data:`~trace_crs.stats.bootstrap.MIN_CLUSTERS` dialogues, or (for the two-value findings 1a,
1d, 2a) when the two values' dialogue-cluster bootstrap intervals overlap, the finding is
"not resolved at n = …" instead of "holds" / "does not hold" (``resolved`` column).
"""
from __future__ import annotations

from pathlib import Path
from typing import Callable, Sequence

import pandas as pd

from trace_crs.report import compare, results
from trace_crs.stats.bootstrap import MIN_CLUSTERS
from trace_crs.stats.intervals import cluster_mean_ci

NAME = "findings"  # table CSV stem (written by the f02_gap notebook)

CLAIMS = {
    "1a": "LLMs lead closed-set accuracy (best LLM R@1 above best non-LLM R@1).",
    "1b": "Open-set retrieval lowers every baseline's R@1 and the LLM lead survives.",
    "1c": "Multi-reference R@1 exceeds single-reference R@1 for every baseline.",
    "1d": "Itinerary-LLM does not raise closed R@1 over LLM Zero-Shot beyond the tolerance.",
    "2a": "Every non-LLM baseline's CGS exceeds the best LLM baseline's CGS.",
    "2b": "Fuzzy GS exceeds entailment grounding by at least the gap for every baseline.",
    "3a": "LLM Zero-Shot has the highest rejection recovery and Multi-Rev. Synth. the lowest.",
}
EXCLUDED = ("memory",)


# (finding → the two baseline keys and the metric its verdict compares), set by the checks below
COMPARED: dict[str, tuple[str, str, str]] = {}


def _verdict(holds: bool) -> str:
    return "holds" if holds else "does not hold"


def _key(label: str) -> str:
    return compare.key_of(label) or label


def _col(table: pd.DataFrame, metric: str) -> pd.Series:
    keep = [k for k in table.index if k in compare.BASELINES and k not in EXCLUDED]
    if metric not in table.columns:
        return pd.Series(dtype=float)
    return table.loc[keep, metric].astype(float).dropna()


def _best(values: pd.Series, fam: str, lowest: bool = False) -> tuple[str, float] | None:
    part = values[[compare.family(k) == fam for k in values.index]]
    if part.empty:
        return None
    key = part.idxmin() if lowest else part.idxmax()
    return compare.label(key), float(part[key])


def f1a(closed: pd.DataFrame, **_: object) -> tuple[bool | None, str]:
    r1 = _col(closed, "recall@1")
    llm, non = _best(r1, "llm"), _best(r1, "non_llm")
    if llm is None or non is None:
        return None, "needs closed-set R@1 of both an LLM and a non-LLM baseline"
    COMPARED["1a"] = (_key(llm[0]), _key(non[0]), "recall@1")
    return llm[1] > non[1], (f"best LLM {llm[0]} R@1 {llm[1]:.3f} vs best non-LLM "
                             f"{non[0]} {non[1]:.3f}")


def f1b(closed: pd.DataFrame, opened: pd.DataFrame, **_: object) -> tuple[bool | None, str]:
    both = pd.concat([_col(closed, "recall@1"), _col(opened, "recall@1")], axis=1,
                     keys=["closed", "open"]).dropna()
    llm, non = _best(both["open"], "llm"), _best(both["open"], "non_llm")
    if llm is None or non is None:
        return None, "needs open-set R@1 of both an LLM and a non-LLM baseline"
    drops = int((both["open"] < both["closed"]).sum())
    return drops == len(both) and llm[1] > non[1], (
        f"open-set R@1 is below closed-set R@1 for {drops} of {len(both)} baselines; best "
        f"open-set LLM {llm[0]} {llm[1]:.3f} vs best non-LLM {non[0]} {non[1]:.3f}")


def f1c(closed: pd.DataFrame, **_: object) -> tuple[bool | None, str]:
    both = pd.concat([_col(closed, "recall@1"), _col(closed, "mr_recall@1")], axis=1,
                     keys=["single", "multi"]).dropna()
    if both.empty:
        return None, "needs single- and multi-reference R@1"
    lift = 100 * (both["multi"] - both["single"])
    return bool((lift > 0).all()), (f"the lift is {lift.min():+.1f} to {lift.max():+.1f} pp "
                                    f"across {len(lift)} baselines")


def f1d(closed: pd.DataFrame, tolerance: float = 0.01, **_: object) -> tuple[bool | None, str]:
    r1 = _col(closed, "recall@1")
    if not {"itinerary_llm", "llm_zero_shot"} <= set(r1.index):
        return None, "Itinerary-LLM and LLM Zero-Shot were not both scored on the closed runs"
    gain = r1["itinerary_llm"] - r1["llm_zero_shot"]
    COMPARED["1d"] = ("itinerary_llm", "llm_zero_shot", "recall@1")
    return bool(gain <= tolerance), (f"Itinerary-LLM R@1 {r1['itinerary_llm']:.3f} vs LLM Zero-Shot "
                                     f"{r1['llm_zero_shot']:.3f} (tolerance {tolerance:.3f})")


def f2a(closed: pd.DataFrame, **_: object) -> tuple[bool | None, str]:
    cgs = _col(closed, "cgs")
    llm, non = _best(cgs, "llm"), _best(cgs, "non_llm", lowest=True)
    if llm is None or non is None:
        return None, "needs CGS of both an LLM and a non-LLM baseline"
    COMPARED["2a"] = (_key(non[0]), _key(llm[0]), "cgs")
    return non[1] > llm[1], (f"lowest non-LLM CGS {non[0]} {non[1]:.3f} vs highest LLM "
                             f"{llm[0]} {llm[1]:.3f}")


def f2b(closed: pd.DataFrame, gap: float = 0.5, **_: object) -> tuple[bool | None, str]:
    both = pd.concat([_col(closed, "gs"), _col(closed, "entailment")], axis=1,
                     keys=["gs", "ent"]).dropna()
    if both.empty:
        return None, "entailment grounding was not scored on these runs"
    diff = both["gs"] - both["ent"]
    return bool((diff >= gap).all()), (f"GS minus entailment is {diff.min():.3f} to {diff.max():.3f} "
                                       f"over {len(diff)} baselines (gap {gap:.2f})")


def f3a(closed: pd.DataFrame, **_: object) -> tuple[bool | None, str]:
    rec = _col(closed, "rejection_recovery")
    if not {"llm_zero_shot", "mrs"} <= set(rec.index):
        return None, "LLM Zero-Shot and Multi-Rev. Synth. rejection recovery were not both scored"
    top, bottom = rec.idxmax(), rec.idxmin()
    return top == "llm_zero_shot" and bottom == "mrs", (
        f"highest {compare.label(top)} {rec[top]:.3f}, lowest {compare.label(bottom)} {rec[bottom]:.3f}")


CHECKS: dict[str, Callable[..., tuple[bool | None, str]]] = {
    "1a": f1a, "1b": f1b, "1c": f1c, "1d": f1d, "2a": f2a, "2b": f2b, "3a": f3a}


def resolution(fid: str, closed: pd.DataFrame, turns: pd.DataFrame | None) -> str | None:
    """None when the finding's data can decide it, else why not ("not resolved at n = …")."""
    involved = [k for k in (COMPARED.get(fid) or ())[:2]] or [k for k in closed.index if k in compare.BASELINES
                                                            and k not in EXCLUDED]
    counts = closed.loc[[k for k in involved if k in closed.index], "n_dialogues"] if "n_dialogues" in closed else None
    n = int(counts.min()) if counts is not None and len(counts) else 0
    if n < MIN_CLUSTERS:
        return f"not resolved at n = {n} dialogues (a verdict needs at least {MIN_CLUSTERS})"
    if fid in COMPARED and turns is not None:
        a, b, metric = COMPARED[fid]
        ci = [cluster_mean_ci(turns[turns["baseline"] == k], metric) for k in (a, b)]
        if not all(c["sufficient"] for c in ci) or (ci[0]["ci_low"] <= ci[1]["ci_high"] and ci[1]["ci_low"] <= ci[0]["ci_high"]):
            return (f"not resolved at n = {n} dialogues: the 95 % intervals of {compare.label(a)} "
                    f"[{ci[0]['ci_low']:.3f}, {ci[0]['ci_high']:.3f}] and {compare.label(b)} "
                    f"[{ci[1]['ci_low']:.3f}, {ci[1]['ci_high']:.3f}] overlap")
    return None


def evaluate(closed: pd.DataFrame, opened: pd.DataFrame, tolerance: float = 0.01,
             gap: float = 0.5, turns: pd.DataFrame | None = None) -> pd.DataFrame:
    """``finding, claim, holds, resolved, sentence`` for every finding, from metric tables by
    baseline (and per-turn scores ``turns`` for the interval check)."""
    rows = []
    COMPARED.clear()
    for fid, check in CHECKS.items():
        holds, detail = check(closed=closed, opened=opened, tolerance=tolerance, gap=gap)
        why = None if holds is None else resolution(fid, closed, turns)
        verdict = "cannot be checked" if holds is None else why or _verdict(bool(holds))
        rows.append({"finding": fid, "claim": CLAIMS[fid], "holds": holds, "resolved": holds is not None and why is None,
                     "sentence": f"Finding {fid} {verdict} on this run ({detail})." if why else
                     f"Finding {fid} {verdict} on this run: {detail}."})
    return pd.DataFrame(rows)


def load(results_dir: str | Path, closed_runs: Sequence[str] = ("closed", "closed_llm"),
         open_runs: Sequence[str] = ("open", "open_llm"), nli_runs: Sequence[str] | None = None,
         tolerance: float = 0.01, gap: float = 0.5) -> pd.DataFrame:
    """Evaluate every finding on a profile's results (the notebook writes ``tables/findings.csv``)."""
    closed = results.metric_table(results.load_aggregates(results_dir, closed_runs))
    closed = results.with_metric(closed, results_dir, nli_runs, "entailment")
    opened = results.metric_table(results.load_aggregates(results_dir, open_runs))
    return evaluate(closed, opened, tolerance, gap, results.load_per_turn(results_dir, closed_runs))
