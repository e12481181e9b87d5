"""The simulated user states only its own preferences (the live user's consistency
rule): every preference sentence found in a user turn — a paraphrase of the simulator's bank or
a keyword frame — expresses a constraint of the dialogue's hidden preferences (or, in a
"conflict", the looser value it stated first and tightened later).  Independent of the
generator's code path: sentences are enumerated from the data files and searched in the text.
"""
from __future__ import annotations

import re

import pytest

from trace_crs.dialogues.constraints import loosened
from trace_crs.dialogues.generate import generate_simulated
from trace_crs.dialogues.phrasing import paraphrases, templates
from trace_crs.kb.lexicon import facet_lexicon

POI_TYPES = ("restaurant", "hotel", "attraction")


def _sentences() -> dict[tuple[str, str], set[str]]:
    """(facet, value-as-text) → every sentence the simulator can use to state it (anchors aside)."""
    out: dict[tuple[str, str], set[str]] = {}
    bank, frames = paraphrases(), templates()["pref"]
    for facet in ("style", "noise", "ambience", "features"):
        for value, phrases in bank[facet].items():
            out.setdefault((facet, value), set()).update(phrases)
        for value, words in facet_lexicon()[facet].items():
            facet_frames = [f for t in POI_TYPES for f in frames["style"][t]] if facet == "style" else frames[facet]
            for frame in facet_frames:
                for kw in words:
                    text = frame.format(kw=kw)
                    out.setdefault((facet, value), set()).add(text[0].upper() + text[1:])
    for ceiling, words in templates()["price_words"].items():
        for frame in frames["price"]:
            out.setdefault(("price_max", str(ceiling)), set()).update(
                (t := frame.format(kw=w))[0].upper() + t[1:] for w in words)
    for facet, values in bank["avoid"].items():             # negated statements: ("avoid:<facet>", value)
        for value, phrases in values.items():
            out.setdefault((f"avoid:{facet}", value), set()).update(phrases)
    for value, words in facet_lexicon()["style"].items():
        for frame in bank["avoid_style"]:
            out.setdefault(("avoid:style", value), set()).update((t := frame.format(kw=w))[0].upper() + t[1:] for w in words)
    # a hedge replaces the final "." by a suffix: match each sentence without it
    return {key: {t[:-1] if t.endswith(".") else t for t in texts} for key, texts in out.items()}


def _without_withdrawn(text: str) -> str:
    """``text`` minus each correction phrase and the sentence it withdraws (paraphrases.yaml
    ``corrections``: "… Actually, scratch that. …")."""
    for phrase in paraphrases()["corrections"]:
        while phrase in text:
            head, tail = text.split(phrase, 1)
            head = re.split(r"(?<=[.!?])\s+", head.rstrip())[:-1]
            text = " ".join(head) + " " + tail
    return text


def _allowed(hidden: dict, facet: str, value: str) -> bool:
    if facet.startswith("avoid:"):
        return value in (hidden.get("avoid") or {}).get(facet.split(":", 1)[1], [])
    target = hidden.get(facet)
    if isinstance(target, list):
        return value in {str(v) for v in target}
    if target is None:
        return False
    constraint = (facet, target)
    while constraint is not None:           # a conflict states a looser value first, then tightens
        if str(constraint[1]) == value:
            return True
        constraint = loosened(constraint)
    return False


@pytest.fixture(scope="module")
def corpus(tiny_kb):
    return generate_simulated(tiny_kb, 60, seed=7)


def test_user_turns_state_only_hidden_preferences(corpus):
    sentences = _sentences()
    found = 0
    for dialogue in corpus:
        hidden = dialogue["scenario"]["hidden_preferences"]
        for turn in dialogue["turns"]:
            if turn["role"] != "user":
                continue
            text = _without_withdrawn(turn["text"])
            matched = [key for key, texts in sentences.items() if any(t in text for t in texts)]
            for facet, value in matched:
                # a sentence shared by several values is fine when one of them is hidden
                alternatives = [k for k in matched if any(t in text for t in sentences[k] & sentences[(facet, value)])]
                assert any(_allowed(hidden, f, v) for f, v in alternatives), (dialogue["dialogue_id"], turn["text"], facet, value)
            found += len(matched)
    assert found > 100  # the check really saw preference statements


def test_every_hidden_preference_is_stated(corpus):
    """The converse: what the user wants is said somewhere (anchors by their place name)."""
    sentences = _sentences()
    for dialogue in corpus:
        hidden = dialogue["scenario"]["hidden_preferences"]
        said = " ".join(_without_withdrawn(t["text"]) for t in dialogue["turns"] if t["role"] == "user")
        wanted = [(f, str(v)) for f in ("style", "noise", "price_max") if (v := hidden.get(f)) is not None]
        wanted += [(f, v) for f in ("ambience", "features") for v in hidden.get(f) or []]
        wanted += [(f"avoid:{f}", v) for f, values in (hidden.get("avoid") or {}).items() for v in values]
        for facet, value in wanted:
            stated = {(f, v) for (f, v), texts in sentences.items() if f == facet and any(t in said for t in texts)}
            assert any(_allowed(hidden, f, v) for f, v in stated), (dialogue["dialogue_id"], facet, value)
        if hidden.get("anchor"):
            assert hidden["anchor"]["name"] in said
        for group in hidden.get("either") or []:   # each member named by a lexicon keyword
            for m in group:
                assert any(w in said.lower() for w in facet_lexicon()[m["facet"]][m["value"]]), (dialogue["dialogue_id"], m)


def test_negated_preferences_are_common_and_stated(corpus):
    """At least 10 % of dialogues state a preference *against* a value (issue "travellers'
    language"; 15 % on the default 1,000-dialogue corpus), each said with a negated sentence."""
    sentences = _sentences()
    avoiding = [d for d in corpus if d["scenario"]["hidden_preferences"]["avoid"]]
    assert len(avoiding) >= 0.10 * len(corpus)
    for d in avoiding:
        said = " ".join(t["text"] for t in d["turns"] if t["role"] == "user")
        for facet, values in d["scenario"]["hidden_preferences"]["avoid"].items():
            for v in values:
                assert any(t in said for t in sentences[(f"avoid:{facet}", v)]), (d["dialogue_id"], facet, v)
