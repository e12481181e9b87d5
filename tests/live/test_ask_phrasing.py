"""Real travellers' phrasing of the questions a system may ask (trace_crs.live.ask): what the
simulated user reads a question as, and its answer from a hand-written profile — the profile's
preference, "no preference" for a facet it leaves open, the next preference for an open question,
"no particular preference about that" for anything else.  The LLM user decides as the template
user (it only rewrites the sentence), so one rule serves both."""
from __future__ import annotations

import copy

import pytest
from dspy.utils import DummyLM

from trace_crs.live.ask import QUESTIONS, asked_facets, asks_location, open_question
from trace_crs.live.llm_user import LLMUser
from trace_crs.live.simulator import (
    FACET_WORDS,
    NO_PREFERENCE_ABOUT,
    NO_PREFERENCE_THAT,
    NOT_SURE,
    SimConfig,
    TemplateUser,
    state,
    turn_rng,
)

# price ≤ 2, pool, near an anchor; nothing about style, noise or atmosphere (hand-written)
PROFILE = {"style": None, "price_max": 2, "noise": None, "ambience": [], "features": ["pool"],
           "anchor": {"name": "Central West End", "latitude": 38.642, "longitude": -90.261, "max_km": 4.0},
           "avoid": {}, "either": []}
PRICE, POOL = ("price_max", 2), ("features", "pool")


@pytest.mark.parametrize("question, facets, where, is_open", [
    ("Any budget in mind?", ["price_max"], False, False),
    ("How much do you want to pay?", ["price_max"], False, False),
    ("Do you prefer somewhere quiet?", ["noise"], False, False),
    ("Do you mind crowds?", ["noise"], False, False),
    ("Somewhere romantic, or casual?", ["ambience"], False, False),
    ("Do you prefer a hotel with a pool?", ["features"], False, False),
    ("Should it be kid-friendly?", ["features"], False, False),
    ("What area are you staying in?", [], True, False),
    ("Where are you staying?", [], True, False),
    ("Are you OK with chains?", [], False, False),
    ("What are you in the mood for?", [], False, False),       # not the atmosphere
    ("Anything else I should know?", [], False, True),
    ("Do you have any other preferences?", [], False, True),
])
def test_what_a_question_is_read_as(question, facets, where, is_open):
    q = f"[Ask] {question}"
    assert (asked_facets(q), asks_location(q), open_question(q)) == (facets, where, is_open)


def test_the_template_questions_read_as_before():
    assert {f: asked_facets(q) for f, q in QUESTIONS.items()} == {f: [f] for f in QUESTIONS}
    assert not any(asks_location(q) for q in QUESTIONS.values())


def user_of(world, cls=TemplateUser, **kw):
    kb, dialogues, _ = world
    d = copy.deepcopy(next(x for x in dialogues if x["scenario"]["poi_type"] == "hotel"))
    d["scenario"]["hidden_preferences"] = PROFILE
    user = cls(d, kb, cfg=SimConfig(opening_prefs=0), **kw)
    user.open()
    return d, user


def ask(user, question):
    return user.respond({"role": "system", "action": "ask_preference", "text": f"[Ask] {question}"}, 2)["text"]


@pytest.mark.parametrize("question, said, no_pref", [
    ("How much do you want to pay?", [PRICE], None),
    ("Do you prefer a hotel with a pool?", [POOL], None),
    ("Which neighbourhood would suit you?", ["anchor"], None),
    ("Do you prefer somewhere quiet?", [], "noise"),
    ("Somewhere romantic?", [], "ambience"),
])
def test_answers_from_the_profile_or_no_preference_about_the_facet(world, question, said, no_pref):
    d, user = user_of(world)
    reply = ask(user, question)
    mine = [c for c in user.order if c in said or c[0] in said]
    rng = turn_rng(42, d["dialogue_id"], 2)
    want = " ".join(state(c, rng) for c in mine) if mine else NO_PREFERENCE_ABOUT.format(what=FACET_WORDS[no_pref])
    assert reply == want and user.revealed == mine


@pytest.mark.parametrize("question", ["Are you OK with chains?", "Do you want a TV in the room?"])
def test_a_question_no_profile_can_answer_gets_no_particular_preference(world, question):
    _, user = user_of(world)
    assert ask(user, question) == NO_PREFERENCE_THAT and user.revealed == [] and not user.done


@pytest.mark.parametrize("question", ["How many people are in your group?", "Is it for a special occasion?",
                                      "Would you like me to book it?"])
def test_a_question_about_no_preference_gets_not_sure(world, question):
    """About the trip or the booking, not a preference: the profile holds no answer and the user
    invents none (it neither states a preference nor claims it has none)."""
    _, user = user_of(world)
    assert ask(user, question) == NOT_SURE and user.revealed == [] and not user.done


def test_an_open_question_gets_the_next_preference(world):
    d, user = user_of(world)
    reply = ask(user, "Anything else I should know?")
    assert user.revealed == user.order[:1] and reply == state(user.order[0], turn_rng(42, d["dialogue_id"], 2))


def test_the_llm_user_decides_as_the_template_user(world):
    _, template = user_of(world)
    _, llm = user_of(world, LLMUser, lm=DummyLM([{"rewritten": "Whatever."}] * 4))
    for q in ("Are you OK with chains?", "How much do you want to pay?"):
        assert ask(llm, q) == "Whatever."
        ask(template, q)
        assert llm.revealed == template.revealed
