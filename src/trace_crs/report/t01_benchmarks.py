"""Table 1: Trace against the closest CRS resources (§1, §8), and what this compendium offers.

The paper's rows are printed facts about other resources (``report/paper/table1_benchmarks.csv``)
and are shown as printed.  Our row is measured on this profile's KB and corpus, not asserted:
review evidence is the share of reference recommend/compare turns whose citations quote their
review verbatim (``review.text[start:end] == quote``), spatial is the share of POIs with
coordinates, multi-aspect the share of dialogues whose hidden preferences constrain two or more
facets, and #Dialogues the corpus size.  A ✓ needs a share of at least :data:`CHECK_AT`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from trace_crs.dialogues.schema import REC_ACTIONS, load_dialogues
from trace_crs.kb.store import load_kb
from trace_crs.report import paper, results

NAME = "t01_benchmarks"  # notebook, module, table CSV
PAPER = "table1_benchmarks"
CHECK_AT = 0.95  # a measured share at or above this is shown as ✓
COLUMNS = ["Benchmark", "Domain", "Grounding", "Review evidence", "Spatial", "Multi-aspect", "#Dialogues"]
FACETS = ("style", "price_max", "noise", "ambience", "features", "anchor", "avoid", "either")


def _constrained(prefs: dict[str, Any]) -> int:
    """How many facets a hidden-preference profile constrains (empty values do not count)."""
    return sum(1 for f in FACETS if prefs.get(f) not in (None, [], {}, ""))


def measure(kb_dir: str | Path, dialogues_path: str | Path) -> dict[str, Any]:
    """The shares our row rests on (module docstring)."""
    kb = load_kb(results.require(kb_dir, "KB directory"))
    dialogues = load_dialogues(results.require(dialogues_path, "dialogue corpus"))
    rec = [t for d in dialogues for t in d["turns"] if t["role"] == "system" and t["action"] in REC_ACTIONS]

    def verbatim(turn: Any) -> bool:
        cites = turn.get("citations") or []
        return bool(cites) and all(
            c["review_id"] in kb.reviews and kb.reviews[c["review_id"]].text[c["start"] : c["end"]] == c["quote"]
            for c in cites
        )

    pois = list(kb.pois.values())
    return {
        "n_dialogues": len(dialogues),
        "review_evidence": sum(map(verbatim, rec)) / len(rec) if rec else float("nan"),
        "spatial": sum(p.latitude is not None and p.longitude is not None for p in pois) / len(pois)
        if pois
        else float("nan"),
        "multi_aspect": sum(_constrained(d["scenario"]["hidden_preferences"]) >= 2 for d in dialogues) / len(dialogues)
        if dialogues
        else float("nan"),
    }


def _mark(share: float) -> str:
    return f"{'✓' if share >= CHECK_AT else '✗'} ({share:.3f})"


def load(results_dir: str | Path, kb_dir: str | Path, dialogues_path: str | Path) -> pd.DataFrame:
    """The paper's rows as printed, then this compendium's row measured on the profile's data."""
    printed = paper.table(PAPER)
    frame = printed[COLUMNS + ["group", "note"]].assign(source="paper")
    m = measure(kb_dir, dialogues_path)
    ours = {
        "Benchmark": "Trace (this compendium, this profile)",
        "Domain": "Tourism",
        "Grounding": "Review span",
        "Review evidence": _mark(m["review_evidence"]),
        "Spatial": _mark(m["spatial"]),
        "Multi-aspect": _mark(m["multi_aspect"]),
        "#Dialogues": str(m["n_dialogues"]),
        "group": "this compendium",
        "note": "measured on this profile's KB and corpus (share in brackets)",
        "source": "ours",
    }
    out = pd.concat([frame, pd.DataFrame([ours])], ignore_index=True)
    out.attrs["measured"] = m
    return out


def facts(df: pd.DataFrame) -> dict[str, Any]:
    """Our measured shares (glued)."""
    m = df.attrs["measured"]
    return {k: m[k] for k in ("n_dialogues", "review_evidence", "spatial", "multi_aspect")} | {"check_at": CHECK_AT}
