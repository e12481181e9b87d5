"""Quality validation of generated dialogues (paper §2.2 stage 4, Appendix G rules) for
both generators, with an E3-style summary of failure reasons.

Checks: schema; turn ids; strict alternation (user first); opening greet_and_seek and
closing farewell; 6–12 turns; role-appropriate actions; action coverage (≥ 1
ask_preference, ≥ 1 reject_and_refine, ≥ 1 compare, ≥ 3 distinct recommended POIs);
compare turns recommend two POIs; every referenced POI exists in the KB and in the 8-POI
pool; gold ⊆ referenced POIs, alternatives ⊆ pool \\ gold; every cited review exists and
belongs to a POI the turn references; every quote matches its offsets — or, if not, is
grounded in its review by the grounding score's rule (:mod:`trace_crs.quote_rule`: ≥ 4 words,
quote-in-review at τ = 0.80, each sentence too; else ``quote_mismatch``) — and appears in the
text as a quote citing its label.  The text is read by the scorer's reader
(:mod:`trace_crs.dialogues.quote_reader`): a citation passes when the reader finds its quote with
its label (``"quote" [Rn]``, label first, typographic marks, groups ``[R1, R2]``), and every label
the text names — a group's too — must be a citation's (else ``dangling_label``).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from trace_crs.config import ScoreConfig
from trace_crs.dialogues.quote_reader import label_names, parse_quotes
from trace_crs.dialogues.schema import (
    ABSTAIN_ACTION,
    REC_ACTIONS,
    SYSTEM_ACTIONS,
    USER_ACTIONS,
    DialogueFormatError,
    check_dialogue,
)
from trace_crs.kb.store import KB
from trace_crs.quote_rule import quote_grounded

FUZZY_THRESHOLD = 100.0 * ScoreConfig.fuzzy_threshold  # rapidfuzz 0–100 scale (dialogues.llm alignment)
MIN_TURNS, MAX_TURNS = 6, 12


def _turn_failures(turn: dict[str, Any], d: dict[str, Any], kb: KB) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    tid, cands = turn["turn_id"], set(d["candidate_poi_ids"])
    for bid in turn["referenced_poi_ids"]:
        if bid not in kb.pois:
            out.append(("unknown_poi", f"turn {tid}: {bid}"))
        elif bid not in cands:
            out.append(("poi_not_candidate", f"turn {tid}: {bid}"))
    if turn["action"] in REC_ACTIONS:
        gold, alts = turn.get("gold_poi_ids", []), turn.get("acceptable_alternative_poi_ids", [])
        if not gold or not set(gold) <= set(turn["referenced_poi_ids"]):
            out.append(("gold_not_referenced", f"turn {tid}"))
        if not set(alts) <= cands - set(gold):
            out.append(("bad_alternatives", f"turn {tid}"))
        if turn["action"] == "compare" and len(set(gold)) < 2:
            out.append(("compare_needs_two", f"turn {tid}"))
        if not turn["citations"]:
            out.append(("no_citation", f"turn {tid}"))
    labels = [c["label"] for c in turn["citations"]]
    if len(set(labels)) != len(labels):
        out.append(("duplicate_label", f"turn {tid}"))
    for label in sorted(set(label_names(turn["text"])) - set(labels)):
        out.append(("dangling_label", f"turn {tid}: [{label}]"))
    read = {(q.text, label) for q in parse_quotes(turn["text"]) for label in q.labels}  # as the scorer reads it
    for c in turn["citations"]:
        review = kb.reviews.get(c["review_id"])
        if review is None:
            out.append(("unknown_review", f"turn {tid}: {c['review_id']}"))
            continue
        if review.business_id not in turn["referenced_poi_ids"]:
            out.append(("review_poi_mismatch", f"turn {tid}: {c['review_id']}"))
        if review.text[c["start"] : c["end"]] != c["quote"]:
            if not quote_grounded(c["quote"], review.text, ScoreConfig.fuzzy_threshold):  # the GS rule
                out.append(("quote_mismatch", f"turn {tid}: {c['label']}"))
            else:
                out.append(("offset_mismatch", f"turn {tid}: {c['label']}"))
        if (c["quote"], c["label"]) not in read:
            out.append(("quote_not_in_text", f"turn {tid}: {c['label']}"))
        if c["review_id"] not in turn["referenced_review_ids"]:
            out.append(("review_not_referenced", f"turn {tid}: {c['review_id']}"))
    return out


def dialogue_failures(d: Any, kb: KB) -> list[tuple[str, str]]:
    """``[(reason, detail), ...]`` for one dialogue; empty when it passes."""
    try:
        check_dialogue(d)
    except DialogueFormatError as exc:
        return [("schema", str(exc))]
    out: list[tuple[str, str]] = []
    turns = d["turns"]
    if not MIN_TURNS <= len(turns) <= MAX_TURNS:
        out.append(("length", f"{len(turns)} turns"))
    for i, turn in enumerate(turns):
        if turn["turn_id"] != i + 1:
            out.append(("turn_id", f"position {i + 1} has turn_id {turn['turn_id']}"))
        want = "user" if i % 2 == 0 else "system"
        if turn["role"] != want:
            out.append(("alternation", f"turn {i + 1} is {turn['role']}"))
        if turn["action"] not in (USER_ACTIONS if turn["role"] == "user" else (*SYSTEM_ACTIONS, ABSTAIN_ACTION)):
            out.append(("role_action", f"turn {i + 1}: {turn['role']} {turn['action']}"))
        out += _turn_failures(turn, d, kb)
    actions = [t["action"] for t in turns]
    if actions[0] != "greet_and_seek":
        out.append(("opening", actions[0]))
    if actions[-1] != "farewell":
        out.append(("closing", actions[-1]))
    for action in ("ask_preference", "reject_and_refine", "compare"):
        if action not in actions:
            out.append((f"no_{action}", ""))
    recommended = {b for t in turns if t["action"] in REC_ACTIONS for b in t["referenced_poi_ids"]}
    if len(recommended) < 3:
        out.append(("few_recommendations", f"{len(recommended)} distinct POIs"))
    pools = d["expanded_pool_poi_ids"]
    if len(set(d["candidate_poi_ids"])) != 8 or not (
        set(d["candidate_poi_ids"]) <= set(pools["16"]) <= set(pools["32"]) <= set(d["open_set_poi_ids"])
    ):
        out.append(("pool_nesting", "8 ⊆ 16 ⊆ 32 ⊆ open violated"))
    return out


def summarize(dialogues: list[Any], kb: KB) -> dict[str, Any]:
    """E3-style summary: dialogues checked, passed, pass rate, and per failure reason the
    number of dialogues showing it (and its share), most frequent first."""
    reasons: Counter[str] = Counter()
    failed: dict[str, list[str]] = {}
    seen: set[str | None] = set()
    for i, d in enumerate(dialogues):
        fails = dialogue_failures(d, kb)
        did = d.get("dialogue_id") if isinstance(d, dict) else None
        if isinstance(did, str) and did in seen:  # a second record with an id would be scored twice
            fails = [*fails, ("duplicate_dialogue_id", f"{did} also appears earlier in the file")]
        seen.add(did if isinstance(did, str) else None)  # a list id is unhashable
        if fails:
            key = f"{did} (#{i + 1})" if str(did) in failed or not isinstance(did, str) else did
            failed[str(key)] = [f"{r}: {x}" if x else r for r, x in fails]
            reasons.update({r for r, _ in fails})
    n = len(dialogues)
    return {
        "n": n,
        "passed": n - len(failed),
        "pass_rate": (n - len(failed)) / n if n else float("nan"),
        "reasons": {
            r: {"dialogues": c, "share": c / n} for r, c in sorted(reasons.items(), key=lambda kv: (-kv[1], kv[0]))
        },
        "failed": failed,
    }
