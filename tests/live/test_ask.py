"""Asking (trace_crs.live.ask): the marker, what a question is about, the uncertainty policy on
hand-worked candidate sets, and the simulated users' answers from the profile (template and LLM
user share the rule)."""
from __future__ import annotations

import copy
import math
import sys
from pathlib import Path

import pandas as pd
import pytest
from dspy.utils import DummyLM

sys.path.insert(0, str(Path(__file__).parent))
from scripted import Scripted  # noqa: E402

from trace_crs.dialogues.constraints import meeting as satisfying  # noqa: E402
from trace_crs.kb.schema import POI  # noqa: E402
from trace_crs.live.ask import QUESTIONS, Asking, asked_facets, asks, facet_entropy  # noqa: E402
from trace_crs.live.loop import converse  # noqa: E402
from trace_crs.dialogues.constraints import constraints_of  # noqa: E402
from trace_crs.live.simulator import NO_PREFERENCE_ABOUT, FACET_WORDS, SimConfig, TemplateUser, state, turn_rng  # noqa: E402


def poi(i: int, price: int | None, noise: str | None, features: list[str]) -> POI:
    return POI(f"p{i}", f"P{i}", "", "Tampa", "FL", 0.0, 0.0, "restaurant", [], 4.0, 10, price,
               {"style": "italian", "noise": noise, "ambience": [], "features": features})


@pytest.mark.parametrize("text,expected", [
    ("[Ask] What is your budget?", True), ("[ ask ] anything?", True), ("Try Luigi's.", False), ("", False),
    (None, False)])
def test_asks(text, expected):
    assert asks(text) is expected


@pytest.mark.parametrize("text,facets", [
    ("[Ask] What is your budget?", ["price_max"]),
    ("[Ask] Quiet, or is a lively place fine? And any cuisine?", ["style", "noise"]),
    ("[Ask] Do you need parking?", ["features"]),
    ("[Ask] How are you?", []),
    ("[Ask] Any preference on the atmosphere?", ["ambience"]),
    ("[Ask] Is a priceless view important?", []),        # whole words only: "priceless" is not "price"
])
def test_asked_facets(text, facets):
    assert asked_facets(text) == facets


def test_every_template_question_is_recognised_as_its_facet():
    assert {f: asked_facets(q) for f, q in QUESTIONS.items()} == {f: [f] for f in QUESTIONS}


def test_facet_entropy_hand_worked():
    pois = [poi(1, 1, "quiet", []), poi(2, 1, "quiet", ["wifi"]), poi(3, 2, "quiet", ["wifi"]),
            poi(4, 2, "loud", ["wifi", "parking"])]
    assert facet_entropy(pois, "price_max") == pytest.approx(math.log(2))                     # 2 / 2
    assert facet_entropy(pois, "noise") == pytest.approx(-(0.75 * math.log(0.75) + 0.25 * math.log(0.25)))
    assert facet_entropy(pois, "features") == pytest.approx(-(0.25 * math.log(0.25) * 2 + 0.5 * math.log(0.5)))
    assert facet_entropy(pois, "style") == 0.0                                              # one value
    assert facet_entropy(pois[:1], "price_max") == 0.0 and facet_entropy([], "noise") == 0.0


def test_policy_asks_the_most_uncertain_facet_once_then_recommends(world):
    kb, dialogues, _ = world
    d = dialogues[0]
    seen = []
    system = Asking(Scripted(lambda ctx: seen.append(ctx) or ctx.candidates[0]), max_questions=1)
    transcript, row, _ = converse(system, "s", d, kb, cfg=SimConfig(max_turns=3))
    pois = [kb.pois[c] for c in d["candidate_poi_ids"]]
    best = max(("style", "price_max", "noise", "ambience", "features"), key=lambda f: facet_entropy(pois, f))
    assert transcript["turns"][1]["action"] == "ask_preference" and transcript["turns"][1]["text"] == QUESTIONS[best]
    assert all(t["action"] != "ask_preference" for t in transcript["turns"][2:]) and row["n_questions"] == 1
    assert seen and seen[0].turn_index == 3     # the ranker answers only after the question


def test_asking_zero_questions_is_the_inner_system(world):
    kb, dialogues, _ = world
    d = dialogues[1]
    plain, row_p, _ = converse(Scripted(lambda ctx: ctx.candidates[0]), "s", d, kb)
    wrapped, row_w, _ = converse(Asking(Scripted(lambda ctx: ctx.candidates[0]), 0), "s", d, kb)
    assert plain == wrapped and pd.Series(row_p).equals(pd.Series(row_w)) and row_w["n_questions"] == 0


def test_user_says_no_preference_for_an_unconstrained_facet(world):
    kb, dialogues, _ = world
    d = next(d for d in dialogues if not d["scenario"]["hidden_preferences"].get("price_max"))
    user = TemplateUser(d, kb)
    user.open()
    before = list(user.revealed)
    reply = user.respond({"role": "system", "action": "ask_preference", "text": QUESTIONS["price_max"]}, 2)
    assert reply["action"] == "provide_preference"
    assert reply["text"] == NO_PREFERENCE_ABOUT.format(what=FACET_WORDS["price_max"])
    assert user.revealed == before and not user.done     # nothing new revealed, nothing invented


def test_unrecognised_question_reveals_the_next_preference(world):
    kb, dialogues, _ = world
    d = next(d for d in dialogues if len(constraints_of(d["scenario"]["hidden_preferences"])) >= 2)
    user = TemplateUser(d, kb)
    user.open()
    n = len(user.revealed)
    user.respond({"role": "system", "action": "ask_preference", "text": "[Ask] Anything else?"}, 2)
    assert len(user.revealed) == n + 1


def test_llm_user_answers_a_question_as_the_template_user(world):
    kb, dialogues, _ = world
    d = dialogues[5]
    ok = satisfying([kb.pois[c] for c in d["candidate_poi_ids"]], constraints_of(d["scenario"]["hidden_preferences"]))
    make = lambda: Asking(Scripted(lambda ctx: ok[0]), 1)  # noqa: E731
    template, row_t, _ = converse(make(), "s", d, kb)
    lm = DummyLM([{"rewritten": "Hi, somewhere nice please."}, {"rewritten": "About that: see above."},
                  {"rewritten": f"Great, {kb.pois[ok[0]].name} then."}])
    live, row_l, _ = converse(make(), "s", d, kb, user_lm=lm)
    assert [t["action"] for t in live["turns"]] == [t["action"] for t in template["turns"]] == \
        ["greet_and_seek", "ask_preference", "provide_preference", "recommend", "accept"]
    assert live["turns"][2]["text"] == "About that: see above."
    assert (row_l["tsr"], row_l["n_questions"]) == (row_t["tsr"], row_t["n_questions"]) == (1.0, 1)


# A profile with a price, an avoided noise level and an either-of group over ambience and noise
# (hand-written): asked about noise, the user must state both noise constraints, not "no preference".
AVOID_LOUD = ("avoid", ("noise", "loud"))
ROMANTIC_OR_QUIET = ("either", (("ambience", "romantic"), ("noise", "quiet")))
COMPOSITE = {"style": None, "price_max": 2, "noise": None, "ambience": [], "features": [], "anchor": None,
             "avoid": {"noise": ["loud"]},
             "either": [[{"facet": "ambience", "value": "romantic"}, {"facet": "noise", "value": "quiet"}]]}


def composite_user(world):
    kb, dialogues, _ = world
    d = copy.deepcopy(dialogues[0])
    d["scenario"]["hidden_preferences"] = COMPOSITE
    user = TemplateUser(d, kb, cfg=SimConfig(opening_prefs=0))
    user.open()
    return d, user


def test_asked_about_a_facet_the_user_avoids_a_value_of_it_says_so(world):
    d, user = composite_user(world)
    assert sorted(map(str, user.profile)) == sorted(map(str, [("price_max", 2), AVOID_LOUD, ROMANTIC_OR_QUIET]))
    reply = user.respond({"role": "system", "action": "ask_preference", "text": QUESTIONS["noise"]}, 2)
    said = [c for c in user.order if c in (AVOID_LOUD, ROMANTIC_OR_QUIET)]      # both are about noise
    rng = turn_rng(42, d["dialogue_id"], 2)
    assert reply["text"] == " ".join(state(c, rng) for c in said)
    assert "no preference" not in reply["text"] and set(user.revealed) == {AVOID_LOUD, ROMANTIC_OR_QUIET}


def test_an_either_group_over_two_asked_facets_is_stated_once(world):
    d, user = composite_user(world)
    question = "[Ask] Quiet or lively, and what atmosphere would you like?"
    assert asked_facets(question) == ["noise", "ambience"]
    reply = user.respond({"role": "system", "action": "ask_preference", "text": question}, 2)
    said = [c for c in user.order if c in (AVOID_LOUD, ROMANTIC_OR_QUIET)]      # noise: both; ambience: nothing new
    rng = turn_rng(42, d["dialogue_id"], 2)
    assert reply["text"] == " ".join(state(c, rng) for c in said)


def test_a_facet_the_profile_says_nothing_about_still_gets_no_preference(world):
    _, user = composite_user(world)
    reply = user.respond({"role": "system", "action": "ask_preference", "text": QUESTIONS["features"]}, 2)
    assert reply["text"] == NO_PREFERENCE_ABOUT.format(what=FACET_WORDS["features"]) and user.revealed == []
