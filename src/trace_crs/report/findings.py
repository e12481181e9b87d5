"""One computed sentence per headline finding (paper §6: 1a–1d, 2a–2b, 3a).

Each finding is operationalised as a comparison on this run's aggregate metrics (closed
runs, plus open-set runs for 1b); the verdict and the numbers in the sentence are computed.
``holds`` is None when the run lacks what the finding needs (the sentence says what).
Memory-Aug. is excluded (not session-isolated, as in the paper's ranks).

A verdict needs enough data: when a baseline the finding compares was scored on fewer than
:data:`~trace_crs.stats.bootstrap.MIN_CLUSTERS` dialogues (on the closed or, for 1b, the open
runs), or when the dialogue-cluster bootstrap intervals of the values it compares overlap, the
finding is "not resolved at n = …" instead of "holds" / "does not hold" (``resolved`` column).
The compared pairs (:data:`COMPARED`): 1a, 1d, 2a their two values; 1b the open-set LLM lead
and, where a baseline's open-set R@1 does not drop, its closed and open values; 3a LLM Zero-Shot
against the next highest and Multi-Rev. Synth. against the next lowest (or, when it does not
hold, the baseline that displaces them). "Holds" needs every pair apart; "does not hold" one
violating pair apart. Rejection recovery's interval is the pooled ratio of recovered episodes
over the dialogue clusters (per-dialogue scores), the other metrics' the per-turn mean. 1c and
2b compare every baseline with a threshold and keep the n check only.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from trace_crs.metrics.registry import POOLED_RATIOS
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


# finding → the pairs of (baseline key, "closed" | "open") and the metric its verdict compares,
# set by the checks below
Side = tuple[str, str]
COMPARED: dict[str, list[tuple[Side, Side, str]]] = {}


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
    COMPARED["1a"] = [((_key(llm[0]), "closed"), (_key(non[0]), "closed"), "recall@1")]
    return llm[1] > non[1], (f"best LLM {llm[0]} R@1 {llm[1]:.3f} vs best non-LLM " f"{non[0]} {non[1]:.3f}")


def f1b(closed: pd.DataFrame, opened: pd.DataFrame, **_: object) -> tuple[bool | None, str]:
    both = pd.concat([_col(closed, "recall@1"), _col(opened, "recall@1")], axis=1, keys=["closed", "open"]).dropna()
    llm, non = _best(both["open"], "llm"), _best(both["open"], "non_llm")
    if llm is None or non is None:
        return None, "needs open-set R@1 of both an LLM and a non-LLM baseline"
    drops = int((both["open"] < both["closed"]).sum())
    holds = drops == len(both) and llm[1] > non[1]
    lead = ((_key(llm[0]), "open"), (_key(non[0]), "open"), "recall@1")
    drop = {k: ((k, "closed"), (k, "open"), "recall@1") for k in both.index}
    if holds:
        COMPARED["1b"] = [lead, *drop.values()]
    else:  # only the parts that fail: the lead, the baselines whose R@1 did not drop
        COMPARED["1b"] = ([] if llm[1] > non[1] else [lead]) + [
            drop[k] for k in both.index if not both.at[k, "open"] < both.at[k, "closed"]
        ]
    return holds, (
        f"open-set R@1 is below closed-set R@1 for {drops} of {len(both)} baselines; best "
        f"open-set LLM {llm[0]} {llm[1]:.3f} vs best non-LLM {non[0]} {non[1]:.3f}"
    )


def f1c(closed: pd.DataFrame, **_: object) -> tuple[bool | None, str]:
    both = pd.concat([_col(closed, "recall@1"), _col(closed, "mr_recall@1")], axis=1, keys=["single", "multi"]).dropna()
    if both.empty:
        return None, "needs single- and multi-reference R@1"
    lift = 100 * (both["multi"] - both["single"])
    return bool((lift > 0).all()), (
        f"the lift is {lift.min():+.1f} to {lift.max():+.1f} pp " f"across {len(lift)} baselines"
    )


def f1d(closed: pd.DataFrame, tolerance: float = 0.01, **_: object) -> tuple[bool | None, str]:
    r1 = _col(closed, "recall@1")
    if not {"itinerary_llm", "llm_zero_shot"} <= set(r1.index):
        return None, "Itinerary-LLM and LLM Zero-Shot were not both scored on the closed runs"
    gain = r1["itinerary_llm"] - r1["llm_zero_shot"]
    COMPARED["1d"] = [(("itinerary_llm", "closed"), ("llm_zero_shot", "closed"), "recall@1")]
    return bool(gain <= tolerance), (
        f"Itinerary-LLM R@1 {r1['itinerary_llm']:.3f} vs LLM Zero-Shot "
        f"{r1['llm_zero_shot']:.3f} (tolerance {tolerance:.3f})"
    )


def f2a(closed: pd.DataFrame, **_: object) -> tuple[bool | None, str]:
    cgs = _col(closed, "cgs")
    llm, non = _best(cgs, "llm"), _best(cgs, "non_llm", lowest=True)
    if llm is None or non is None:
        return None, "needs CGS of both an LLM and a non-LLM baseline"
    COMPARED["2a"] = [((_key(non[0]), "closed"), (_key(llm[0]), "closed"), "cgs")]
    return non[1] > llm[1], (f"lowest non-LLM CGS {non[0]} {non[1]:.3f} vs highest LLM " f"{llm[0]} {llm[1]:.3f}")


def f2b(closed: pd.DataFrame, gap: float = 0.5, **_: object) -> tuple[bool | None, str]:
    both = pd.concat([_col(closed, "gs"), _col(closed, "entailment")], axis=1, keys=["gs", "ent"]).dropna()
    if both.empty:
        return None, "entailment grounding was not scored on these runs"
    diff = both["gs"] - both["ent"]
    return bool((diff >= gap).all()), (
        f"GS minus entailment is {diff.min():.3f} to {diff.max():.3f} " f"over {len(diff)} baselines (gap {gap:.2f})"
    )


def f3a(closed: pd.DataFrame, **_: object) -> tuple[bool | None, str]:
    rec = _col(closed, "rejection_recovery")
    if not {"llm_zero_shot", "mrs"} <= set(rec.index):
        return None, "LLM Zero-Shot and Multi-Rev. Synth. rejection recovery were not both scored"
    top, bottom = rec.idxmax(), rec.idxmin()
    holds = top == "llm_zero_shot" and bottom == "mrs"
    rest = rec.drop(["llm_zero_shot", "mrs"])
    pairs = (
        [
            (("llm_zero_shot", "closed"), (rest.idxmax() if holds else top, "closed")),
            (("mrs", "closed"), (rest.idxmin() if holds else bottom, "closed")),
        ]
        if len(rest)
        else []
    )
    COMPARED["3a"] = [(a, b, "rejection_recovery") for a, b in pairs if holds or a[0] != b[0]]
    return holds, (f"highest {compare.label(top)} {rec[top]:.3f}, lowest {compare.label(bottom)} {rec[bottom]:.3f}")


CHECKS: dict[str, Callable[..., tuple[bool | None, str]]] = {
    "1a": f1a,
    "1b": f1b,
    "1c": f1c,
    "1d": f1d,
    "2a": f2a,
    "2b": f2b,
    "3a": f3a,
}


def _interval(frames: dict[str, pd.DataFrame | None], side: Side, metric: str) -> dict | None:
    key, run = side
    if metric in POOLED_RATIOS:  # a pooled ratio of per-dialogue counts (metrics.registry)
        frame, (metric, denominator) = frames.get(f"{run}_dialogues"), POOLED_RATIOS[metric]
    else:
        frame, denominator = frames.get(run), None
    if frame is None:
        return None
    return cluster_mean_ci(frame[frame["baseline"] == key], metric, denominator=denominator)


def _apart(a: dict, b: dict) -> bool:
    return a["sufficient"] and b["sufficient"] and (a["ci_high"] < b["ci_low"] or b["ci_high"] < a["ci_low"])


def resolution(
    fid: str, holds: bool, tables: dict[str, pd.DataFrame], frames: dict[str, pd.DataFrame | None]
) -> str | None:
    """None when the finding's data can decide it, else why not ("not resolved at n = …")."""
    pairs = COMPARED.get(fid)
    closed = tables["closed"]
    sides = (
        {s for a, b, _ in pairs for s in (a, b)}
        if pairs
        else {(k, "closed") for k in closed.index if k in compare.BASELINES and k not in EXCLUDED}
    )
    counts = [
        tables[run].at[k, "n_dialogues"] for k, run in sides if "n_dialogues" in tables[run] and k in tables[run].index
    ]
    counts = [int(c) for c in counts if pd.notna(c)]
    n = min(counts) if counts else 0
    if n < MIN_CLUSTERS:
        return f"not resolved at n = {n} dialogues (a verdict needs at least {MIN_CLUSTERS})"
    if not pairs:
        return None
    cis: list[tuple[Any, Any, Any, Any]] = [
        (a, b, _interval(frames, a, m), _interval(frames, b, m)) for a, b, m in pairs
    ]
    cis = [c for c in cis if c[2] is not None and c[3] is not None]
    if not cis:
        return None
    apart = [_apart(ca, cb) for _, _, ca, cb in cis]
    if all(apart) if holds else any(apart):
        return None
    a, b, ca, cb = next(c for c, ok in zip(cis, apart, strict=False) if not ok)
    where = lambda side: compare.label(side[0]) + (" (open set)" if side[1] == "open" else "")  # noqa: E731
    return (
        f"not resolved at n = {n} dialogues: the 95 % intervals of {where(a)} "
        f"[{ca['ci_low']:.3f}, {ca['ci_high']:.3f}] and {where(b)} "
        f"[{cb['ci_low']:.3f}, {cb['ci_high']:.3f}] overlap"
    )


def evaluate(
    closed: pd.DataFrame,
    opened: pd.DataFrame,
    tolerance: float = 0.01,
    gap: float = 0.5,
    turns: pd.DataFrame | None = None,
    open_turns: pd.DataFrame | None = None,
    closed_dialogues: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """``finding, claim, holds, resolved, sentence`` for every finding, from metric tables by
    baseline and, for the interval check, the closed runs' per-turn (``turns``) and per-dialogue
    scores and the open runs' per-turn scores."""
    rows = []
    COMPARED.clear()
    tables = {"closed": closed, "open": opened}
    frames = {"closed": turns, "open": open_turns, "closed_dialogues": closed_dialogues}
    for fid, check in CHECKS.items():
        holds, detail = check(closed=closed, opened=opened, tolerance=tolerance, gap=gap)
        why = None if holds is None else resolution(fid, bool(holds), tables, frames)
        verdict = "cannot be checked" if holds is None else why or _verdict(bool(holds))
        rows.append(
            {
                "finding": fid,
                "claim": CLAIMS[fid],
                "holds": holds,
                "resolved": holds is not None and why is None,
                "sentence": f"Finding {fid} {verdict} on this run ({detail})."
                if why
                else f"Finding {fid} {verdict} on this run: {detail}.",
            }
        )
    return pd.DataFrame(rows)


def load(
    results_dir: str | Path,
    closed_runs: Sequence[str] = ("closed", "closed_llm"),
    open_runs: Sequence[str] = ("open", "open_llm"),
    nli_runs: Sequence[str] | None = None,
    tolerance: float = 0.01,
    gap: float = 0.5,
) -> pd.DataFrame:
    """Evaluate every finding on a profile's results (the notebook writes ``tables/findings.csv``)."""
    closed = results.metric_table(results.load_aggregates(results_dir, closed_runs))
    closed = results.with_metric(closed, results_dir, nli_runs, "entailment")
    opened = results.metric_table(results.load_aggregates(results_dir, open_runs))
    return evaluate(
        closed,
        opened,
        tolerance,
        gap,
        results.load_per_turn(results_dir, closed_runs),
        results.load_per_turn(results_dir, open_runs),
        results.load_per_dialogue(results_dir, closed_runs),
    )
