"""The live user simulator: states only its profile, accepts exactly the POIs that satisfy it,
always terminates, is deterministic per seed, and reacts to what the system recommended."""
from __future__ import annotations

import json
import re

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from scripted import Scripted  # noqa: E402

from trace_crs.baselines.registry import create  # noqa: E402
from trace_crs.dialogues.phrasing import paraphrases, templates
from trace_crs.kb.lexicon import facet_lexicon
from trace_crs.dialogues.constraints import meeting as satisfying
from trace_crs.live.loop import converse
from trace_crs.live.simulator import NO_PREFERENCE, SimConfig, TemplateUser


def hidden_constraints(hidden):
    """The profile, written out independently of dialogues.constraints.constraints_of."""
    out = []
    for facet in ("style", "price_max", "noise", "anchor"):
        if hidden[facet] is not None:
            out.append((facet, hidden[facet]))
    for facet in ("ambience", "features"):
        out += [(facet, v) for v in hidden[facet]]
    out += [("avoid", (f, v)) for f, vs in (hidden.get("avoid") or {}).items() for v in vs]
    return out + [("either", tuple((m["facet"], m["value"]) for m in g)) for g in hidden.get("either") or []]


def bank_sentences(anchor_name=None):
    """Every sentence the paraphrase bank (and the price frames) can produce → (facet, value key)."""
    table = {}
    for facet in ("style", "noise", "ambience", "features"):
        for value, sentences in paraphrases()[facet].items():
            for s in sentences:
                table.setdefault(s, set()).add((facet, value))
    for ceiling, words in templates()["price_words"].items():
        for frame in templates()["pref"]["price"]:
            for w in words:
                table.setdefault(frame.format(kw=w), set()).add(("price_max", str(ceiling)))
    for facet, values in paraphrases()["avoid"].items():   # negated statements
        for value, sentences in values.items():
            for s in sentences:
                table.setdefault(s, set()).add(("avoid", str((facet, value))))
    for value, words in facet_lexicon()["style"].items():
        for frame in paraphrases()["avoid_style"]:
            for w in words:
                text = frame.format(kw=w)
                table.setdefault(text[0].upper() + text[1:], set()).add(("avoid", str(("style", value))))
    if anchor_name:
        for frame in paraphrases()["anchor"]:
            table.setdefault(frame.format(anchor=anchor_name), set()).add(("anchor", anchor_name))
    return table


def key(constraint):
    facet, value = constraint
    return (facet, value["name"] if facet == "anchor" else str(tuple(value)) if facet == "avoid" else str(value))


def either_said(text):
    """How many either/or statements (the bank's ``either`` frames) ``text`` holds."""
    frames = [re.escape(f).replace(re.escape("{a}"), ".+").replace(re.escape("{b}"), ".+") for f in paraphrases()["either"]]
    return sum(bool(re.search(f, text, re.IGNORECASE)) for f in frames)


def stated(text, table):
    """(facet, value) pairs of the bank sentences found in ``text``."""
    return [next(iter(table[s])) for s in table if s in text]


@pytest.fixture(scope="module")
def runs(world):
    """Live transcripts of three systems × two seeds over the world's dialogues."""
    kb, dialogues, _ = world
    systems = {"popularity": create("popularity"), "tfidf": create("tfidf"),
               "last": Scripted(lambda ctx: ctx.candidates[-1]), "abstain": Scripted(lambda ctx: None)}
    for s in systems.values():
        getattr(s, "prepare", lambda kb: None)(kb)
    return [(d, converse(s, name, d, kb, seed, SimConfig(max_turns=5))[0])
            for name, s in systems.items() for seed in (42, 7) for d in dialogues]


def test_bank_sentences_are_unambiguous():
    table = bank_sentences("Ybor City")
    assert all(len(v) == 1 for v in table.values())


def test_never_states_a_preference_outside_its_profile(runs):
    checked = 0
    for dialogue, transcript in runs:
        hidden = dialogue["scenario"]["hidden_preferences"]
        prof = {key(c) for c in hidden_constraints(hidden)}
        table = bank_sentences(hidden["anchor"]["name"] if hidden["anchor"] else None)
        for turn in transcript["turns"]:
            if turn["role"] != "user":
                continue
            said = stated(turn["text"], table)
            assert set(said) <= prof, (dialogue["dialogue_id"], turn["text"])
            # never the baselines' keyword frames ("It should be quiet.")
            for facet in ("noise", "ambience", "features"):
                for frame in templates()["pref"][facet]:
                    pattern = re.escape(frame).replace(re.escape("{kw}"), ".+")
                    assert not re.search(pattern, turn["text"]) or said, turn["text"]
            checked += 1
    assert checked > 200


def test_opening_states_a_profile_preference_or_none(runs):
    for dialogue, transcript in runs:
        hidden = dialogue["scenario"]["hidden_preferences"]
        table = bank_sentences(hidden["anchor"]["name"] if hidden["anchor"] else None)
        opening = transcript["turns"][0]["text"]
        if hidden_constraints(hidden):
            assert len(stated(opening, table)) + either_said(opening) == 1
        else:
            assert NO_PREFERENCE in opening


def test_empty_profile_says_no_particular_preference_and_accepts_anything(world):
    kb, dialogues, _ = world
    d = json.loads(json.dumps(dialogues[0]))
    d["scenario"]["hidden_preferences"] = {"style": None, "price_max": None, "noise": None, "ambience": [],
                                           "features": [], "anchor": None}
    transcript, row, _ = converse(Scripted(lambda ctx: ctx.candidates[3]), "s", d, kb)
    assert NO_PREFERENCE in transcript["turns"][0]["text"]
    assert [t["action"] for t in transcript["turns"]] == ["greet_and_seek", "recommend", "accept"]
    assert row["tsr"] == 1.0 and row["t2r"] == 1.0


def test_accepts_exactly_when_the_recommended_poi_satisfies_the_profile(world):
    kb, dialogues, _ = world
    n_yes = n_no = 0
    for d in dialogues:
        prof = hidden_constraints(d["scenario"]["hidden_preferences"])
        cands = d["candidate_poi_ids"]
        ok = set(satisfying([kb.pois[c] for c in cands], prof))  # brute force over the pool
        final_gold = [t for t in d["turns"] if t.get("gold_poi_ids")][-1]["gold_poi_ids"][0]
        assert final_gold in ok  # the reference's accepted POI meets the profile
        for c in cands:
            transcript, row, _ = converse(Scripted(lambda ctx, c=c: c), "s", d, kb, cfg=SimConfig(max_turns=2))
            reply = transcript["turns"][2]
            assert (reply["action"] == "accept") == (c in ok), (d["dialogue_id"], c)
            assert reply["referenced_poi_ids"] == [c]
            n_yes += c in ok
            n_no += c not in ok
    assert n_yes >= len(dialogues) and n_no > n_yes  # both branches exercised


@pytest.mark.parametrize("cap", [1, 2, 3, 6])
def test_always_terminates_within_the_cap(world, cap):
    kb, dialogues, _ = world
    for d in dialogues[:8]:
        prof = hidden_constraints(d["scenario"]["hidden_preferences"])
        bad = [c for c in d["candidate_poi_ids"] if c not in satisfying([kb.pois[c]], prof)]
        for system in (Scripted(lambda ctx, b=bad[0]: b), Scripted(lambda ctx: None)):
            transcript, row, _ = converse(system, "s", d, kb, cfg=SimConfig(max_turns=cap))
            assert row["n_system_turns"] == cap and row["tsr"] == 0.0 and row["t2r"] == cap + 1
            assert len(transcript["turns"]) == 2 * cap + 1


def test_rejects_by_name_and_reveals_a_violated_preference(world):
    kb, dialogues, _ = world
    for d in dialogues:
        prof = hidden_constraints(d["scenario"]["hidden_preferences"])
        hidden = d["scenario"]["hidden_preferences"]
        table = bank_sentences(hidden["anchor"]["name"] if hidden["anchor"] else None)
        bad = [c for c in d["candidate_poi_ids"] if c not in satisfying([kb.pois[c]], prof)]
        if not bad:
            continue
        transcript, _, _ = converse(Scripted(lambda ctx, b=bad[0]: b), "s", d, kb, cfg=SimConfig(max_turns=3))
        reply = transcript["turns"][2]
        assert reply["action"] == "reject_and_refine" and kb.pois[bad[0]].name in reply["text"]
        violated = {key(c) for c in prof if not satisfying([kb.pois[bad[0]]], [c])}
        assert set(stated(reply["text"], table)) & violated


def test_deterministic_per_seed_and_independent_of_order(world):
    kb, dialogues, _ = world
    tfidf = create("tfidf")
    tfidf.prepare(kb)
    forward = [converse(tfidf, "tfidf", d, kb, 42)[0] for d in dialogues]
    backward = [converse(tfidf, "tfidf", d, kb, 42)[0] for d in reversed(dialogues)][::-1]
    assert json.dumps(forward, sort_keys=True) == json.dumps(backward, sort_keys=True)
    other = [converse(tfidf, "tfidf", d, kb, 7)[0] for d in dialogues]
    assert json.dumps(forward, sort_keys=True) != json.dumps(other, sort_keys=True)


def test_a_different_recommendation_changes_the_next_user_turn(world):
    kb, dialogues, _ = world
    changed = 0
    for d in dialogues:
        prof = hidden_constraints(d["scenario"]["hidden_preferences"])
        ok = set(satisfying([kb.pois[c] for c in d["candidate_poi_ids"]], prof))
        bad = [c for c in d["candidate_poi_ids"] if c not in ok]
        picks = [bad[0], bad[-1], sorted(ok)[0]]
        replies = [converse(Scripted(lambda ctx, p=p: p), "s", d, kb)[0]["turns"][2] for p in picks]
        if bad[0] != bad[-1]:
            assert replies[0]["text"] != replies[1]["text"]
            changed += 1
        assert [r["action"] for r in replies] == ["reject_and_refine", "reject_and_refine", "accept"]
    assert changed > 10


def test_the_system_sees_only_the_live_conversation(world):
    kb, dialogues, _ = world
    system = Scripted(lambda ctx: ctx.candidates[0])
    d = dialogues[5]
    transcript, _, _ = converse(system, "s", d, kb, cfg=SimConfig(max_turns=3))
    for ctx in system.seen:
        assert [t["text"] for t in ctx.history] == [t["text"] for t in transcript["turns"][:ctx.turn_index]]
        assert all(set(t) == {"turn_id", "role", "text"} for t in ctx.history if t["role"] == "user")
        assert set(ctx.candidates) == set(d["candidate_poi_ids"])


def test_user_refuses_to_talk_after_the_end(world):
    kb, dialogues, _ = world
    user = TemplateUser(dialogues[0], kb, cfg=SimConfig(max_turns=1))
    user.open()
    user.respond({"action": "abstain", "referenced_poi_ids": []}, 2)
    with pytest.raises(RuntimeError, match="already ended"):
        user.respond({"action": "abstain", "referenced_poi_ids": []}, 4)


def test_a_system_reads_every_live_rejection_from_the_text(world):
    """TurnContext.rejected_poi_ids (read from the conversation) equals the POIs the user turned
    down, at every system turn: the simulator's rejections name the POI with a cue."""
    kb, dialogues, _ = world
    checked = 0
    for seed in (42, 7):
        for d in dialogues:
            system = Scripted(lambda ctx: next((c for c in ctx.candidates if c not in ctx.rejected_poi_ids),
                                               ctx.candidates[0]))
            transcript, _, _ = converse(system, "s", d, kb, seed, SimConfig(max_turns=6))
            for ctx in system.seen:
                truth = {t["referenced_poi_ids"][0] for t in transcript["turns"][:ctx.turn_index]
                         if t["action"] == "reject_and_refine"}
                assert ctx.rejected_poi_ids == truth
                checked += bool(truth)
    assert checked > 40
