"""Corpus statistics of the dialogue half of the paper's Table 3 (§2.1).

* turns per dialogue: mean and sample standard deviation (ddof = 1);
* POIs recommended per dialogue: distinct POIs referenced by recommend/compare turns;
* rejection rate: reject_and_refine turns / user turns, over the corpus;
* tier counts, persona archetypes used, candidates per dialogue;
* share of recommend/compare turns with ≥ 1 acceptable alternative (Appendix S).

With the KB (:func:`evidence_stats`), two properties the data card reports:

* quote specificity — the share of cited quotes found in the reviews of exactly one POI
  (:func:`trace_crs.dialogues.quotes.quote_specificity`; §2.2, a quote grounds a claim about
  one POI);
* travellers' language (:func:`preference_language`) — the share of dialogues whose hidden
  preferences hold a negated (``avoid``) or a disjunctive (``either``) preference, and whether
  gold honours them (ARCHITECTURE §2).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any, TypedDict

import numpy as np

from trace_crs.dialogues.constraints import constraints_of, meets
from trace_crs.dialogues.quotes import quote_specificity
from trace_crs.dialogues.schema import REC_ACTIONS, SPLITS, TIERS, Dialogue
from trace_crs.errors import DataError
from trace_crs.kb.store import KB

COMPOSITE = ("avoid", "either")  # the negated and the disjunctive preference kinds


def corpus_stats(dialogues: Sequence[Dialogue]) -> dict[str, Any]:
    """Table-3 statistics of a list of dialogues (NaN for empty input)."""
    n = len(dialogues)
    turns = np.array([len(d["turns"]) for d in dialogues], dtype=float)
    pois = np.array(
        [
            len({b for t in d["turns"] if t["action"] in REC_ACTIONS for b in t["referenced_poi_ids"]})
            for d in dialogues
        ],
        dtype=float,
    )
    user = sum(t["role"] == "user" for d in dialogues for t in d["turns"])
    rejections = sum(t["action"] == "reject_and_refine" for d in dialogues for t in d["turns"])
    rec = [t for d in dialogues for t in d["turns"] if t["action"] in REC_ACTIONS]
    tiers = Counter(d["scenario"]["difficulty"] for d in dialogues)
    splits = Counter(d["split"] for d in dialogues)
    nan = float("nan")
    return {
        "dialogues": n,
        "turns_mean": float(turns.mean()) if n else nan,
        "turns_sd": float(turns.std(ddof=1)) if n > 1 else nan,
        "pois_recommended_mean": float(pois.mean()) if n else nan,
        "rejection_rate": rejections / user if user else nan,
        "dialogues_with_rejection": sum(any(t["action"] == "reject_and_refine" for t in d["turns"]) for d in dialogues),
        "rec_turns": len(rec),
        "rec_turns_with_alternative": (sum(bool(t.get("acceptable_alternative_poi_ids")) for t in rec) / len(rec))
        if rec
        else nan,
        "tiers": {t: tiers.get(t, 0) for t in TIERS},
        "splits": {s: splits.get(s, 0) for s in SPLITS},
        "persona_archetypes": len({d["scenario"]["persona_type"] for d in dialogues}),
        "candidates_per_dialogue": float(np.mean([len(d["candidate_poi_ids"]) for d in dialogues])) if n else nan,
    }


class PreferenceRow(TypedDict):
    """One dialogue's negated/disjunctive preferences and gold checks (:func:`preference_rows`)."""

    dialogue_id: str
    negated: bool
    disjunctive: bool
    avoid_pairs: int
    avoid_violations: int
    either_pairs: int
    either_violations: int
    rejected_gold_with_avoided: int


def preference_rows(dialogues: Sequence[Dialogue], kb: KB, source: str | None = None) -> list[PreferenceRow]:
    """Per dialogue: whether its hidden preferences hold a negated (``avoid``) value and a
    disjunctive (``either``) group, and the gold check.

    Gold is checked on every recommend/compare turn whose next user turn is not
    ``reject_and_refine``: by then the user has stated every hidden preference (the simulator's
    plan states one per rejection, and the hidden preferences are what was stated), so each
    gold POI must meet each composite constraint (:func:`~trace_crs.dialogues.constraints.meets`);
    ``*_pairs`` count the (gold POI, constraint) pairs checked, ``*_violations`` those not met.
    A rejected turn's gold may have an avoided value — that is the rejection's reason ("too
    loud — nothing loud") — and is counted apart (``rejected_gold_with_avoided``).  A gold POI
    missing from the KB is a :class:`~trace_crs.errors.DataError` naming ``source`` (the corpus
    file) and the dialogue's line (one dialogue per line)."""
    rows: list[PreferenceRow] = []
    for line, d in enumerate(dialogues, start=1):
        composite = [c for c in constraints_of(d["scenario"]["hidden_preferences"]) if c[0] in COMPOSITE]
        pairs, bad, rejected_avoided = Counter[str](), Counter[str](), 0
        turns = d["turns"]
        for i, turn in enumerate(turns):
            if turn["action"] not in REC_ACTIONS:
                continue
            rejected = i + 1 < len(turns) and turns[i + 1]["action"] == "reject_and_refine"
            for bid in turn.get("gold_poi_ids") or turn["referenced_poi_ids"]:
                if bid not in kb.pois:
                    raise DataError(
                        f"dialogue {d['dialogue_id']}, turn {turn['turn_id']}: gold POI {bid} is not in the KB",
                        file=source,
                        line=line,
                        field="gold_poi_ids",
                    )
                for kind, value in composite:
                    ok = meets(kb.pois[bid], (kind, value))
                    if rejected:
                        rejected_avoided += kind == "avoid" and not ok
                    else:
                        pairs[kind] += 1
                        bad[kind] += not ok
        rows.append(
            {
                "dialogue_id": d["dialogue_id"],
                "negated": any(c[0] == "avoid" for c in composite),
                "disjunctive": any(c[0] == "either" for c in composite),
                "avoid_pairs": pairs["avoid"],
                "avoid_violations": bad["avoid"],
                "either_pairs": pairs["either"],
                "either_violations": bad["either"],
                "rejected_gold_with_avoided": rejected_avoided,
            }
        )
    return rows


def preference_language(dialogues: Sequence[Dialogue], kb: KB, source: str | None = None) -> dict[str, Any]:
    """Corpus totals of :func:`preference_rows`; ``share`` fields are over all dialogues (NaN
    for none)."""
    rows = preference_rows(dialogues, kb, source)
    n = len(rows)
    negated, disjunctive = sum(r["negated"] for r in rows), sum(r["disjunctive"] for r in rows)
    nan = float("nan")
    return {
        "dialogues": n,
        "negated_dialogues": negated,
        "negated_share": negated / n if n else nan,
        "disjunctive_dialogues": disjunctive,
        "disjunctive_share": disjunctive / n if n else nan,
        "gold_pairs_checked": {
            "avoid": sum(r["avoid_pairs"] for r in rows),
            "either": sum(r["either_pairs"] for r in rows),
        },
        "gold_violations": {
            "avoid": sum(r["avoid_violations"] for r in rows),
            "either": sum(r["either_violations"] for r in rows),
        },
        "rejected_gold_with_avoided": sum(r["rejected_gold_with_avoided"] for r in rows),
    }


def evidence_stats(dialogues: Sequence[Dialogue], kb: KB, source: str | None = None) -> dict[str, Any]:
    """The KB-dependent statistics of the data card: ``quotes`` (quote specificity) and
    ``preferences`` (:func:`preference_language`)."""
    return {"quotes": quote_specificity(dialogues, kb), "preferences": preference_language(dialogues, kb, source)}
