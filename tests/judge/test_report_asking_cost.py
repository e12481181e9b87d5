"""Why asking moves live TSR (trace_crs.report.core_asking_cost) on a hand-built pair of live
runs: the budget / answer split of the paired TSR difference, and the diagnostics, worked by hand.

Three dialogues, max_turns = 4, the asking run asked once in each:
  d1: without asking accepted at the 4th recommendation; with asking never accepted
      -> without 1, same_recs 0 (4 > 4 - 1), with 0; asked about price, profile has a price.
  d2: without asking accepted at once; with asking accepted at the first recommendation
      -> 1, 1, 1; asked about atmosphere, profile has no ambience (open); same first POI.
  d3: without asking never accepted; with asking accepted at the first recommendation
      -> 0, 0, 1; asked about noise, profile has a noise level.
Means: with 2/3, without 2/3, same_recs 1/3: total 0, answer +1/3, budget -1/3.
"""

import json

import pandas as pd
import pytest

from trace_crs.report import core_asking_cost as cost

PROFILES = {
    "d1": {"price_max": 2, "ambience": []},
    "d2": {"noise": "quiet", "ambience": []},
    "d3": {"noise": "quiet", "ambience": []},
}
QUESTIONS = {"d1": "[Ask] What is your budget?", "d2": "[Ask] What atmosphere would you like?",
             "d3": "[Ask] Somewhere quiet, or loud?"}


def sys_turn(action, pois=(), text="Try this."):
    return {"role": "system", "action": action, "text": text, "referenced_poi_ids": list(pois)}


def user_turn(action="reject_and_refine"):
    return {"role": "user", "action": action, "text": "...", "referenced_poi_ids": []}


def transcript(d, recs, ask):
    """recs: (poi, accepted) per recommendation, in order; ask: whether a question comes first."""
    turns = [user_turn("greet_and_seek")]
    if ask:
        turns += [sys_turn("ask_preference", text=QUESTIONS[d]), user_turn("provide_preference")]
    for poi, ok in recs:
        turns += [sys_turn("recommend", [poi]), user_turn("accept" if ok else "reject_and_refine")]
    return {"dialogue_id": d, "scenario": {"hidden_preferences": PROFILES[d]}, "turns": turns,
            "metadata": {"live": {"max_turns": 4}}}


WITHOUT = {"d1": [("p1", False), ("p5", False), ("p6", False), ("p7", True)],
           "d2": [("p1", True)],
           "d3": [("p4", False), ("p5", False), ("p6", False), ("p7", False)]}
WITH = {"d1": [("p2", False), ("p5", False), ("p6", False)],
        "d2": [("p1", True)],
        "d3": [("p3", True)]}


def write_run(root, run, recs, ask):
    base = root / "live" / run
    (base / "transcripts").mkdir(parents=True)
    (base / "transcripts" / "tfidf.jsonl").write_text(
        "".join(json.dumps(transcript(d, r, ask)) + "\n" for d, r in recs.items()))
    rows = []
    for d, r in recs.items():
        hit = [i for i, (_, ok) in enumerate(r, 1 + ask) if ok]
        rows.append({"dialogue_id": d, "baseline": "tfidf", "tsr": float(bool(hit)),
                     "t2r": float(hit[0] if hit else 5), "n_questions": int(ask)})
    pd.DataFrame(rows).to_parquet(base / "live_scores.parquet")


@pytest.fixture
def runs(tmp_path):
    write_run(tmp_path, "live", WITHOUT, False)
    write_run(tmp_path, "live_ask", WITH, True)
    return tmp_path


def test_budget_and_answer_split(runs):
    cmp, _ = cost.load(runs, n_boot=200)
    got = cmp.set_index("comparison")
    assert list(got.index) == ["total", "answer", "budget"] and set(got["n"]) == {3}
    assert got.loc["total", ["tsr_a", "tsr_b", "delta"]].tolist() == pytest.approx([2 / 3, 2 / 3, 0])
    assert got.loc["answer", ["tsr_a", "tsr_b", "delta"]].tolist() == pytest.approx([2 / 3, 1 / 3, 1 / 3])
    assert got.loc["budget", ["tsr_a", "tsr_b", "delta"]].tolist() == pytest.approx([1 / 3, 2 / 3, -1 / 3])
    # the split is exact: total = answer + budget
    assert got.loc["total", "delta"] == pytest.approx(got.loc["answer", "delta"] + got.loc["budget", "delta"])


def test_diagnostics(runs):
    _, diag = cost.load(runs, n_boot=200)
    row = diag.iloc[0]
    assert row["n"] == 3 and row["questions_per_dialogue"] == 1
    assert row["asked_facets"] == "ambience 1, noise 1, price_max 1"  # ties: by name
    assert row["asked_open_share"] == pytest.approx(1 / 3)          # d2 only
    assert row["first_rec_changed_share"] == pytest.approx(2 / 3)   # d1 (p2 vs p1), d3 (p3 vs p4)
    assert row["first_accept_without"] == pytest.approx(1 / 3)     # d2
    assert row["first_accept_with"] == pytest.approx(2 / 3)        # d2, d3


def test_facts_ranges(runs):
    f = cost.facts(*cost.load(runs, n_boot=200))
    assert f["cost_n"] == 3
    assert f["cost_budget_min"] == pytest.approx(-1 / 3) and f["cost_answer_max"] == pytest.approx(1 / 3)


def test_not_run_is_empty(tmp_path):
    cmp, diag = cost.load(tmp_path)
    assert cmp.empty and diag.empty
    f = cost.facts(cmp, diag)
    assert f["cost_n"] == 0 and f["cost_total_min"] != f["cost_total_min"]  # NaN


def test_question_about_nothing_recognisable_is_not_counted():
    t = transcript("d1", [("p1", False)], True)
    t["turns"][1]["text"] = "[Ask] Anything else?"
    assert cost.asked_open(t) is None
    avoids = transcript("d1", [], True)
    avoids["scenario"]["hidden_preferences"] = {"ambience": [], "avoid": {"price_max": [3]}}
    assert cost.asked_open(avoids) is False          # an avoided value of the asked facet is not "open"
    assert cost.first_recommendation(transcript("d2", [], False)) == ([], False)
