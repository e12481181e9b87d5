"""The live user simulator (TravelBench's simulated-user loop, seed 003 §3,
adapted to Trace's hidden preferences, paper §2.2).

A deterministic template user driven by one dialogue's *profile* — the constraints of its
``scenario.hidden_preferences`` — talks to a system instead of replaying the reference:

* **opening** (``greet_and_seek``): the city, the travel context, the kind of place, and
  ``opening_prefs`` preferences of the profile (``"I have no particular preference."`` when the
  profile is empty);
* **reaction** to the POI the system actually recommended (its top-1,
  :func:`trace_crs.metrics.recommendation.recommended`): ``accept`` exactly when the POI meets
  every profile constraint (:func:`trace_crs.dialogues.constraints.meets` over the one satisfaction
  test); otherwise ``reject_and_refine`` naming the POI and revealing one more preference —
  preferably one the rejected POI violates — or, when every violated one was already stated,
  restating it (and revealing the next one if any is left);
* a question (an ``ask_preference`` turn, :mod:`trace_crs.live.ask`; read by
  :mod:`trace_crs.live.reading`) about facets the user can recognise — or about where (the
  profile's anchor) — is answered from the profile: its
  preferences about those facets (wanted and avoided values, either-of groups), or "no
  preference" for a facet the profile leaves open (:meth:`TemplateUser._answer`); an open
  question ("anything else?") gets the next preference, a question about a preference no profile
  holds (chains, a room with a view …) "no particular preference about that", and a question
  about no preference at all (the trip's dates, the party, "shall I book it?", small talk: read
  as ``aside``) "I'm not sure about that" — the profile holds no answer and the user invents none;
* any other system turn without a recommendation (an abstention) is answered with the next
  preference;
* it stops on acceptance or after ``max_turns`` system turns (the last rejection says goodbye).

A profile may also hold values the user does not want and either-of groups (``avoid`` and
``either`` of the hidden preferences): a POI having an avoided value is rejected, and the user
says so with a negated sentence of the bank.  Preferences are phrased only from the simulator's own bank (``dialogues/data/paraphrases.yaml``;
prices with the public price words of ``templates.yaml``), never from the facet lexicon the
baselines read, so a statement is never a lookup key.  Every sentence is drawn from a generator
seeded by ``(seed, dialogue id, turn index)``: a dialogue's conversation does not depend on
which other dialogues run or in which order, and the same system answers give the same
conversation byte for byte.  The order in which preferences are revealed depends only on
``(seed, dialogue id)``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from trace_crs import DEFAULT_SEED
from trace_crs.dialogues.constraints import Constraint, constraints_of, meets
from trace_crs.dialogues.phrasing import avoid_text, choose, paraphrases, pref_text, render, templates
from trace_crs.kb.store import KB
from trace_crs.live.ask import ASK_ACTION, asked_facets, asks_location, not_a_preference, open_question

NO_PREFERENCE = "I have no particular preference."
NO_PREFERENCE_ABOUT = "I have no preference about the {what}."
NO_PREFERENCE_THAT = "I have no particular preference about that."
NOT_SURE = "I'm not sure about that."  # a question about no preference (the trip, the booking): no profile answer
FACET_WORDS: dict[str, str] = {
    "style": "kind of place",
    "price_max": "price",
    "noise": "noise level",
    "ambience": "atmosphere",
    "features": "amenities",
    "anchor": "location",
}
RESTATE = "As I said: {pref}"
GOODBYE = "I'll keep looking elsewhere, thanks."
STREAM = 19  # the simulator's stream id: keeps its draws apart from the generator's streams (fixed: it
# is part of every seeded conversation, so changing it changes every live transcript)


@dataclass(frozen=True)
class SimConfig:
    """Simulator settings: the turn cap (system turns) and how much the opening states."""

    max_turns: int = 4
    opening_prefs: int = 1

    def __post_init__(self) -> None:
        if self.max_turns < 1:
            raise ValueError(f"max_turns must be >= 1, got {self.max_turns}")
        if self.opening_prefs < 0:
            raise ValueError(f"opening_prefs must be >= 0, got {self.opening_prefs}")


def about(constraint: Constraint) -> set[str]:
    """The facets a profile constraint is about: its own, an avoided value's (``("avoid",
    ("noise", "loud"))`` is about noise) or those of an either-of group's members."""
    facet, value = constraint
    if facet == "avoid":
        return {value[0]}
    if facet == "either":
        return {f for f, _ in value}
    return {facet}


def dialogue_salt(dialogue_id: str) -> int:
    """First 8 bytes of sha256(dialogue id): the per-dialogue part of every seed."""
    return int.from_bytes(hashlib.sha256(dialogue_id.encode()).digest()[:8], "big")


def turn_rng(seed: int, dialogue_id: str, turn_index: int) -> np.random.Generator:
    """The generator of one user turn: ``default_rng([seed, 19, salt(dialogue id), turn index])``."""
    return np.random.default_rng([seed, STREAM, dialogue_salt(dialogue_id), turn_index])


def state(constraint: Constraint, rng: np.random.Generator) -> str:
    """One sentence stating a constraint, from the simulator's paraphrase bank (prices: a price
    frame with a public price word; anchors: the bank's anchor frames with the place's name)."""
    facet, value = constraint
    if facet == "avoid":
        return avoid_text(value, rng)
    if facet == "either":
        return pref_text(constraint, "restaurant", rng)  # keyword frames only: the POI type is not read
    if facet == "price_max":
        words = templates()["price_words"].get(int(value))
        if not words:
            raise ValueError(f"no price words for price_max={value!r}; known: {sorted(templates()['price_words'])}")
        return choose(templates()["pref"]["price"], rng).format(kw=choose(words, rng))
    if facet == "anchor":
        return choose(paraphrases()["anchor"], rng).format(anchor=value["name"])
    options = paraphrases()[facet].get(str(value))
    if not options:
        raise ValueError(f"the paraphrase bank has no sentence for {facet}={value!r}")
    return choose(options, rng)


@dataclass
class TemplateUser:
    """One simulated user; :meth:`open` then :meth:`respond` to each system turn until ``done``."""

    dialogue: Mapping[str, Any]
    kb: KB
    seed: int = DEFAULT_SEED
    cfg: SimConfig = SimConfig()
    revealed: list[Constraint] = field(default_factory=list)
    done: bool = False
    accepted: str | None = None
    system_turns: int = 0

    def __post_init__(self) -> None:
        self.id = str(self.dialogue["dialogue_id"])
        self.scenario = self.dialogue["scenario"]
        self.profile = constraints_of(self.scenario["hidden_preferences"])
        order = np.random.default_rng([self.seed, STREAM, dialogue_salt(self.id)]).permutation(len(self.profile))
        self.order = [self.profile[i] for i in order]

    def satisfied_by(self, poi_id: str) -> bool:
        """Whether the user accepts ``poi_id``: it meets every profile constraint."""
        poi = self.kb.pois.get(poi_id)
        return poi is not None and all(meets(poi, c) for c in self.profile)

    def _unrevealed(self) -> list[Constraint]:
        return [c for c in self.order if c not in self.revealed]

    def _reveal(self, constraints: list[Constraint], rng: np.random.Generator) -> list[str]:
        self.revealed += [c for c in constraints if c not in self.revealed]
        return [state(c, rng) for c in constraints]

    def open(self) -> dict[str, Any]:
        """The opening request (turn 1)."""
        rng = turn_rng(self.seed, self.id, 0)
        said = self._reveal(self.order[: self.cfg.opening_prefs], rng)
        frames = [f for f in templates()["user"]["greet_and_seek"] if "{about}" not in f]
        noun = choose(templates()["nouns"][self.scenario["poi_type"]], rng)
        text = choose(frames, rng).format(
            city=self.scenario["city"],
            context=self.scenario["context"],
            noun=noun,
            pref=" ".join(said) if said else NO_PREFERENCE,
        )
        return _turn("greet_and_seek", text)

    def respond(self, system_turn: Mapping[str, Any], turn_index: int) -> dict[str, Any]:
        """The user's answer to ``system_turn`` (the turn at ``turn_index`` is the answer's)."""
        if self.done:
            raise RuntimeError(f"{self.id}: the user already ended the conversation")
        rng = turn_rng(self.seed, self.id, turn_index)
        self.system_turns += 1
        offered = list(system_turn.get("referenced_poi_ids") or [])
        if system_turn.get("action") in ("recommend", "compare") and offered:
            poi_id = offered[0]
            if self.satisfied_by(poi_id):
                self.done, self.accepted = True, poi_id
                return _turn("accept", render("user", "accept", rng, name=self.kb.pois[poi_id].name), [poi_id])
            return self._reject(poi_id, rng)
        if self.system_turns >= self.cfg.max_turns:
            self.done = True
            return _turn("provide_preference", GOODBYE)
        if system_turn.get("action") == ASK_ACTION:
            text = system_turn.get("text")
            facets = asked_facets(text) + (["anchor"] if asks_location(text) else [])
            if facets:
                return _turn("provide_preference", self._answer(facets, rng))
            if not open_question(text):  # about something the profile cannot say: unknown, not a wish
                return _turn("provide_preference", NOT_SURE if not_a_preference(text) else NO_PREFERENCE_THAT)
        said = self._reveal(self._unrevealed()[:1], rng)
        return _turn("provide_preference", " ".join(said) or NO_PREFERENCE)

    def _answer(self, facets: list[str], rng: np.random.Generator) -> str:
        """The answer to a question about ``facets`` (:mod:`trace_crs.live.ask`): every profile
        preference about those facets (:func:`about`: a value it wants, one it avoids, an either-of
        group with a member of the facet), stated (again, if already said); a facet the profile
        says nothing about gets "no preference" (TravelBench: what the profile does not mention is
        unknown to the user, not a wish)."""
        said: list[str] = []
        answered: list[Constraint] = []
        for facet in facets:
            mine = [c for c in self.order if facet in about(c)]
            new = [c for c in mine if c not in answered]  # an either-of group over two asked facets: once
            answered += new
            said += self._reveal(new, rng) if mine else [NO_PREFERENCE_ABOUT.format(what=FACET_WORDS[facet])]
        return " ".join(said)

    def _reject(self, poi_id: str, rng: np.random.Generator) -> dict[str, Any]:
        poi = self.kb.pois.get(poi_id)
        name = poi.name if poi is not None else poi_id
        frames = [f for f in templates()["user"]["reject_and_refine"] if "{name}" in f]
        frame = choose(frames, rng)
        if self.system_turns >= self.cfg.max_turns:
            self.done = True
            return _turn("reject_and_refine", frame.format(name=name, pref=GOODBYE), [poi_id])
        violated = [c for c in self.order if poi is None or not meets(poi, c)]
        new = [c for c in violated if c not in self.revealed][:1]
        if new:
            said = self._reveal(new, rng)
        else:  # every violated preference was stated already: say it again, and add the next one
            said = [RESTATE.format(pref=state(violated[0], rng))] if violated else []
            said += self._reveal(self._unrevealed()[:1], rng)
        return _turn("reject_and_refine", frame.format(name=name, pref=" ".join(said) or NO_PREFERENCE), [poi_id])


def _turn(action: str, text: str, refs: list[str] | None = None) -> dict[str, Any]:
    """A user turn in the dialogue schema (``turn_id`` is set by the loop)."""
    return {
        "role": "user",
        "action": action,
        "text": " ".join(text.split()),
        "referenced_poi_ids": refs or [],
        "referenced_review_ids": [],
        "citations": [],
    }
