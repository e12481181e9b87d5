"""dialogues.stats.preference_language / evidence_stats and constraints_of: negated and
disjunctive preferences of a corpus, and whether gold honours them (hand-worked cases)."""
import json
import math

import pytest

from trace_crs.dialogues.constraints import constraints_of, hidden_preferences
from trace_crs.dialogues.quotes import quote_owner_counts
from trace_crs.dialogues.stats import evidence_stats, preference_language, preference_rows
from trace_crs.kb.schema import POI, Review
from trace_crs.kb.store import KB


def _poi(bid, noise, ambience):
    attrs = {"style": "italian", "noise": noise, "ambience": ambience, "features": []}
    return POI(bid, bid, "a", "Tampa", "FL", 27.95, -82.46, "restaurant", [], 4.0, 3, 2, attrs)


# L is loud, Q quiet, C quiet and cozy
KB_ = KB(pois={"L": _poi("L", "loud", []), "Q": _poi("Q", "quiet", []), "C": _poi("C", "quiet", ["cozy"])},
         reviews={"r1": Review("r1", "Q", 5, "Quiet at Q.", "2020-01-01T00:00:00"),
                  "r2": Review("r2", "C", 5, "Cozy at C. Quiet at Q.", "2020-01-01T00:00:00")})


def _turn(i, role, action, gold=(), quotes=()):
    t = {"turn_id": i, "role": role, "action": action, "text": "", "referenced_poi_ids": list(gold),
         "citations": [{"quote": q} for q in quotes]}
    if role == "system" and action in ("recommend", "compare"):
        t["gold_poi_ids"] = list(gold)
    return t


def _dialogue(did, hidden, *rec):
    """greet, ask, then (provide | reject) → recommend per ``rec`` item (gold, rejected-next)."""
    turns = [_turn(1, "user", "greet_and_seek"), _turn(2, "system", "ask_preference")]
    for j, gold in enumerate(rec):
        turns.append(_turn(len(turns) + 1, "user", "provide_preference" if j == 0 else "reject_and_refine", gold))
        turns.append(_turn(len(turns) + 1, "system", "recommend", gold, quotes=("Quiet at Q.",)))
    turns += [_turn(len(turns) + 1, "user", "accept"), _turn(len(turns) + 2, "system", "farewell")]
    prefs = {"style": None, "price_max": None, "noise": None, "ambience": [], "features": [], "anchor": None, **hidden}
    return {"dialogue_id": did, "scenario": {"hidden_preferences": prefs}, "turns": turns}


AVOID_LOUD = {"avoid": {"noise": ["loud"]}}
EITHER = {"either": [[{"facet": "ambience", "value": "cozy"}, {"facet": "ambience", "value": "romantic"}]]}


def test_golden_corpus():
    corpus = [
        # d1: L recommended, rejected ("too loud — nothing loud"), then Q: honoured; 1 rejected-with-avoided
        _dialogue("d1", AVOID_LOUD, ["L"], ["Q"]),
        # d2: the final gold L has the avoided value: one violation
        _dialogue("d2", AVOID_LOUD, ["L"]),
        # d3: either cozy or romantic: C honours it, Q (final, unrejected) does not
        _dialogue("d3", EITHER, ["C", "Q"]),
        # d4: nothing negated or disjunctive
        _dialogue("d4", {}, ["Q"]),
    ]
    out = preference_language(corpus, KB_)
    assert out == {
        "dialogues": 4,
        "negated_dialogues": 2, "negated_share": 0.5,
        "disjunctive_dialogues": 1, "disjunctive_share": 0.25,
        # unrejected gold × composite constraint: d1 (Q, avoid), d2 (L, avoid), d3 (C, either), (Q, either)
        "gold_pairs_checked": {"avoid": 2, "either": 2},
        "gold_violations": {"avoid": 1, "either": 1},
        "rejected_gold_with_avoided": 1,
    }


def test_rows_per_dialogue():
    rows = preference_rows([_dialogue("d1", AVOID_LOUD, ["L"], ["Q"]), _dialogue("d3", EITHER, ["C", "Q"])], KB_)
    assert [(r["dialogue_id"], r["negated"], r["disjunctive"], r["avoid_pairs"], r["avoid_violations"],
             r["either_pairs"], r["either_violations"], r["rejected_gold_with_avoided"]) for r in rows] == [
        ("d1", True, False, 1, 0, 0, 0, 1), ("d3", False, True, 0, 0, 2, 1, 0)]


def test_quote_owner_counts_per_citation():
    d = _dialogue("d1", {}, ["L"], ["Q"])
    d["turns"][3]["citations"] = [{"quote": "Cozy at C."}, {"quote": "Quiet at Q."}]  # C only; Q and C
    assert quote_owner_counts([d], KB_) == [("d1", 1), ("d1", 2), ("d1", 2)]


def test_empty_corpus_is_nan():
    out = preference_language([], KB_)
    assert out["dialogues"] == 0 and math.isnan(out["negated_share"]) and math.isnan(out["disjunctive_share"])


def test_older_corpus_without_composites():
    d = _dialogue("d", {}, ["Q"])
    del d["scenario"]["hidden_preferences"]["ambience"]  # and no avoid/either keys at all
    out = preference_language([d], KB_)
    assert out["negated_dialogues"] == 0 and out["gold_pairs_checked"] == {"avoid": 0, "either": 0}


def test_unknown_gold_poi_is_named():
    from trace_crs.errors import DataError

    corpus = [_dialogue("d0", {}, ["Q"]), _dialogue("d", AVOID_LOUD, ["X"])]
    with pytest.raises(DataError, match=r"c\.jsonl:2: field 'gold_poi_ids': dialogue d, turn 4: gold POI X") as err:
        preference_language(corpus, KB_, "c.jsonl")
    assert err.value.exit_code == 3


def test_evidence_stats_holds_quote_specificity():
    # every recommend turn cites "Quiet at Q.", found in r1 (Q) and r2 (C): two POIs
    out = evidence_stats([_dialogue("d1", AVOID_LOUD, ["L"], ["Q"])], KB_)
    assert out["quotes"] == {"n_quotes": 2, "single_poi_share": 0.0, "by_n_pois": {"0": 0, "1": 0, "2": 2, "3+": 0}}
    assert out["preferences"]["negated_dialogues"] == 1


@pytest.mark.parametrize("constraints", [
    [("style", "thai"), ("price_max", 2), ("noise", "quiet"), ("ambience", "cozy"), ("features", "wifi"),
     ("anchor", {"name": "x", "latitude": 1.0, "longitude": 2.0, "max_km": 2.0}),
     ("avoid", ("noise", "loud")), ("avoid", ("style", "bbq")),
     ("either", (("ambience", "cozy"), ("features", "patio")))],
    [],
])
def test_constraints_of_inverts_hidden_preferences(constraints):
    back = constraints_of(hidden_preferences(constraints))
    assert sorted(map(json.dumps, back)) == sorted(map(json.dumps, constraints))
    assert hidden_preferences(back) == hidden_preferences(constraints)
