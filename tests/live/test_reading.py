"""The simulated user's question reader (trace_crs.live.reading): the parts of a question it
reads, the nearest-example classifier and its abstention, and that the Asking policy's template
questions are answered exactly as before the reader classified (the keyword rule read each as its
own facet, and nowhere, so the answer was ``_answer([facet])``)."""
from __future__ import annotations

import copy

import pytest

import trace_crs.live.reading as reading
from trace_crs.live.ask import QUESTIONS
from trace_crs.live.reading import Reading, classify, examples, parts, read_question
from trace_crs.live.simulator import SimConfig, TemplateUser, turn_rng


@pytest.mark.parametrize("text, want", [
    ("[Ask] Any cuisine or neighbourhood you prefer?", ["Any cuisine or neighbourhood you prefer", "Any cuisine",
                                                       "neighbourhood you prefer"]),
    ("[Ask] I have two Thai places. Is money a concern?", ["Is money a concern"]),   # only the question
    ("[Ask] Tell me your budget.", ["Tell me your budget"]),                           # no question mark: all
    ("[Ask] Fancy or relaxed? Fancy or relaxed?", ["Fancy or relaxed"]),  # lone words within the whole; once
    ("[Ask] ?", []),
    ("[Ask] Budget, area, vibe?", ["Budget, area, vibe", "Budget", "area", "vibe"]),   # a list: items alone
    ("[Ask] Any wishes on cuisine, price, or location?", ["Any wishes on cuisine, price, or location",
                                                          "Any wishes on cuisine", "or location", "price",
                                                          "location"]),   # a list after a lead-in
    ("[Ask] Hip and modern, or cosy and traditional?", ["Hip and modern, or cosy and traditional",
                                                        "or cosy"]),   # "and" makes no list: no lone word
    ("[Ask] Okay, what's your budget?", ["Okay, what's your budget", "what's your budget", "Okay"]),
    ("", []),
])
def test_parts(text, want):
    assert parts(text) == want


def test_every_example_reads_as_its_own_class():
    texts, labels = examples()
    owner = {}
    for t, c in zip(texts, labels):
        assert owner.setdefault(t.casefold(), c) == c, f"{t!r} is an example of two classes"
    assert [c for c, _ in classify(list(texts))] == list(labels)


def test_abstains_below_the_threshold(monkeypatch):
    monkeypatch.setattr(reading, "THRESHOLD", 1.01)          # no cosine reaches it
    assert [c for c, _ in classify(["What is your budget?", "Anything else?"])] == ["other", "other"]
    assert classify([]) == []


@pytest.mark.parametrize("question, want", [
    ("Any cuisine or neighbourhood you prefer?", Reading(("style", "anchor"), "facets", False)),   # compound
    ("Quiet or lively?", Reading(("noise",), "facets", False)),                                    # either/or
    ("I have two Thai places. Is money a concern?", Reading(("price_max",), "facets", False)),    # statement first
    ("Any other wishes?", Reading((), "open", True)),
    ("Would you like me to book it?", Reading((), "none", False, True)),        # not a preference
    ("Do you want a TV in the room?", Reading((), "none", False, False)),       # a preference no profile holds
    ("Budget, area, vibe?", Reading(("price_max", "ambience", "anchor"), "facets", False)),  # a facet list
    ("So, anything else?", Reading((), "open", True)),           # a lone filler item adds no class
])
def test_read_question(question, want):
    assert read_question(f"[Ask] {question}") == want


def test_the_same_text_reads_the_same_after_the_memo_is_cleared():
    q = "[Ask] Do you fancy somewhere with a terrace, or near the river?"
    first = read_question(q)
    read_question.cache_clear()
    assert read_question(q) == first


PROFILES = [  # hand-written: a value of every facet; nothing at all; an avoided value and an either-of group
    {"style": "italian", "price_max": 2, "noise": "quiet", "ambience": ["romantic"], "features": ["parking"],
     "anchor": None, "avoid": {}, "either": []},
    {"style": None, "price_max": None, "noise": None, "ambience": [], "features": [], "anchor": None,
     "avoid": {}, "either": []},
    {"style": None, "price_max": None, "noise": None, "ambience": [], "features": [], "anchor": None,
     "avoid": {"noise": ["loud"]}, "either": [[{"facet": "ambience", "value": "cozy"}, {"facet": "features", "value": "wifi"}]]},
]


@pytest.mark.parametrize("profile", range(len(PROFILES)))
@pytest.mark.parametrize("facet", sorted(QUESTIONS))
def test_template_questions_get_the_answers_they_got_before(world, profile, facet):
    kb, dialogues, _ = world
    d = copy.deepcopy(dialogues[0])
    d["scenario"]["hidden_preferences"] = PROFILES[profile]

    def user():
        u = TemplateUser(d, kb, cfg=SimConfig(opening_prefs=0))
        u.open()
        return u

    asked, before = user(), user()
    reply = asked.respond({"role": "system", "action": "ask_preference", "text": QUESTIONS[facet]}, 2)
    before.system_turns += 1
    assert reply["text"] == " ".join(before._answer([facet], turn_rng(42, d["dialogue_id"], 2)).split())
    assert asked.revealed == before.revealed


def test_the_llm_user_reads_a_new_phrasing_as_the_template_user(world):
    from dspy.utils import DummyLM

    from trace_crs.live.llm_user import LLMUser

    kb, dialogues, _ = world
    d = copy.deepcopy(dialogues[0])
    d["scenario"]["hidden_preferences"] = PROFILES[0]
    turn = {"role": "system", "action": "ask_preference", "text": "[Ask] Any cuisine or neighbourhood you prefer?"}
    template = TemplateUser(d, kb, cfg=SimConfig(opening_prefs=0))
    llm = LLMUser(d, kb, cfg=SimConfig(opening_prefs=0), lm=DummyLM([{"rewritten": "Sure thing."}] * 2))
    for u in (template, llm):
        u.open()
        u.respond(turn, 2)
    assert llm.revealed == template.revealed == [("style", "italian")]   # the profile has no anchor


@pytest.mark.parametrize("name", ["held_out_questions.yaml", "held_out_questions_2.yaml", "held_out_questions_3.yaml",
                                  "held_out_questions_4.yaml",
                                  "old_phrasings.yaml"])
def test_the_measured_question_sets_are_well_formed(name):
    import yaml
    from pathlib import Path

    items = yaml.safe_load((Path(__file__).parent / "data" / name).read_text())
    assert len({i["q"] for i in items}) == len(items) >= 28
    for i in items:
        assert set(i["facets"]) <= {*reading.ASKABLE, "anchor"} and i["kind"] in {"facets", "open", "none"}
        assert (i["kind"] == "facets") == bool(i["facets"]), i["q"]


def test_template_questions_are_read_without_the_model(monkeypatch):
    """The Asking policy's questions never load the sentence model (a process that only reads
    template questions — a non-LLM asking run, the asking-cost report — never embeds)."""
    import trace_crs.lm.embeddings as embeddings

    def no_model(*_a, **_k):
        raise AssertionError("the sentence model was used")

    monkeypatch.setattr(embeddings, "embed", no_model)
    monkeypatch.setattr(embeddings, "minilm", no_model)
    read_question.cache_clear()
    try:
        got = {f: read_question(q) for f, q in QUESTIONS.items()}
        assert got == {f: Reading((f,), "facets", False) for f in QUESTIONS}
        assert read_question(" ".join(QUESTIONS["noise"].split()) + " ") == got["noise"]   # spacing aside
        with pytest.raises(AssertionError, match="sentence model"):
            read_question("[Ask] Any budget in mind?")
    finally:
        read_question.cache_clear()


@pytest.mark.parametrize("facet", sorted(QUESTIONS))
def test_the_classifier_reads_each_template_question_as_its_shortcut(facet):
    assert reading.classified_reading(QUESTIONS[facet]) == read_question(QUESTIONS[facet])
