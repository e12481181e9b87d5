"""Adapters into the transcript format (:mod:`trace_crs.judge.transcript`).

* :func:`from_dialogue` — a Trace reference dialogue (ARCHITECTURE §2): ``system`` turns become
  ``assistant`` turns, their ``referenced_poi_ids`` the items (named through the KB when one is
  given), their citations the evidence (the cited review's full text).  The ground truth is what
  the traveller accepted (:func:`accepted_pois`), not every turn's gold: a place the traveller
  rejected is not what they wanted, so recommending it again must not earn Effectiveness 4.
* :func:`from_predictions` — a run's predictions (ARCHITECTURE §5) spliced into the reference
  dialogue: each reference recommend/compare turn is replaced by the baseline's response, its
  top :data:`~trace_crs.metrics.predictions.CITABLE_TOP` ranked POIs (the POIs a response
  presents) and the review texts its citations resolve to; other turns stay the reference's.
  A missing prediction becomes an empty response with no items (``score`` counts it as a miss
  too).  The transcript's id is ``<system>/<dialogue_id>`` (one transcript per system and
  dialogue, as CoRE's logs are).  Caveat: the user turns after a spliced turn answer the *reference* system, so
  Recoverability and Coherence are judged against a user who did not hear the baseline.
* :func:`from_live` — a live conversation of ``trace-crs converse``: the judge rates the turns
  the system and the simulated user actually exchanged; only the opening request, the same for
  every system, is history.
* :func:`from_generic` — the generic ``{"dialogue_id", "turns": [{"role", "text"}]}`` layout
  of other CRS logs (e.g. CRSArena movie conversations), with common role / text synonyms.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from trace_crs.errors import DataError
from trace_crs.judge.transcript import Transcript, Turn, parse_transcript
from trace_crs.kb import KB
from trace_crs.metrics.dialogue import REC_ACTIONS
from trace_crs.metrics.predictions import CITABLE_TOP, Key, cited_texts

ROLE_SYNONYMS = {
    "user": "user",
    "human": "user",
    "seeker": "user",
    "assistant": "assistant",
    "system": "assistant",
    "bot": "assistant",
    "crs": "assistant",
    "recommender": "assistant",
}
TEXT_KEYS = ("text", "utterance", "content", "message")
ITEM_KEYS = ("items", "recommended_items", "rec_items", "movies")


def item_name(kb: KB | None, poi_id: str) -> str:
    """``Name [categories or style; $$]`` — what a traveller would see of a POI (public fields)."""
    if kb is None or poi_id not in kb.pois:
        return poi_id
    p = kb.pois[poi_id]
    kinds = ", ".join(p.categories[:3]) or str((p.attributes or {}).get("style") or p.poi_type)
    price = f"; {'$' * p.price}" if p.price else ""
    return f"{p.name} [{kinds}{price}]"


def _review_text(kb: KB | None, review_id: str, quote: str) -> str:
    return kb.reviews[review_id].text if kb is not None and review_id in kb.reviews else quote


def accepted_pois(d: Mapping[str, Any]) -> list[str]:
    """Gold POIs of the recommend/compare turns the traveller answers with ``accept``; when no
    such turn exists, the gold of the last recommend/compare turn."""
    turns, out = d["turns"], {}
    rec = [i for i, t in enumerate(turns) if t["role"] == "system" and t.get("action") in REC_ACTIONS]
    for i in rec:
        if i + 1 < len(turns) and turns[i + 1].get("action") == "accept":
            out.update(dict.fromkeys(turns[i].get("gold_poi_ids") or []))
    if not out and rec:
        out = dict.fromkeys(turns[rec[-1]].get("gold_poi_ids") or [])
    return list(out)


def from_dialogue(d: Mapping[str, Any], kb: KB | None = None, system: str = "reference") -> Transcript:
    """The reference dialogue ``d`` as a transcript."""
    turns = []
    for t in d["turns"]:
        if t["role"] == "user":
            turns.append(Turn(role="user", text=t["text"]))
            continue
        evidence = {c["label"]: _review_text(kb, c["review_id"], c.get("quote", "")) for c in t.get("citations") or []}
        turns.append(
            Turn(
                role="assistant",
                text=t["text"],
                evidence=evidence,
                items=[item_name(kb, p) for p in t.get("referenced_poi_ids") or []],
            )
        )
    return Transcript(
        dialogue_id=d["dialogue_id"],
        turns=turns,
        ground_truth=[item_name(kb, p) for p in accepted_pois(d)],
        system=system,
        domain=(d.get("scenario") or {}).get("poi_type"),
    )


def from_predictions(
    d: Mapping[str, Any], predictions: Mapping[Key, Mapping[str, Any]], kb: KB, system: str
) -> Transcript:
    """The baseline's responses spliced into the reference dialogue ``d`` (module docstring)."""
    ref = from_dialogue(d, kb, system)
    turns = list(ref.turns)
    for i, t in enumerate(d["turns"]):
        if t["role"] != "system" or t.get("action") not in REC_ACTIONS:
            continue
        pred = predictions.get((d["dialogue_id"], t["turn_id"]))
        if pred is None:
            turns[i] = Turn(role="assistant", text="")
            continue
        turns[i] = Turn(
            role="assistant",
            text=pred["text"],
            evidence=cited_texts(kb, pred),
            items=[item_name(kb, p) for p in pred["ranked_poi_ids"][:CITABLE_TOP]],
        )
    return ref.model_copy(update={"turns": turns, "dialogue_id": f"{system}/{d['dialogue_id']}"})


def opening_turns(d: Mapping[str, Any]) -> int:
    """How many turns precede the first system turn: the user's opening request, identical for
    every system that converses with the same simulated user (seeded by dialogue, not system)."""
    return next((i for i, t in enumerate(d["turns"]) if t["role"] != "user"), len(d["turns"]))


def from_live(
    d: Mapping[str, Any],
    kb: KB | None = None,
    system: str | None = None,
    predictions: Mapping[Key, Mapping[str, Any]] | None = None,
) -> Transcript:
    """A live transcript (``trace-crs converse``, :mod:`trace_crs.live.loop`) as a judge
    transcript: every turn is the system's or the simulated user's live turn (no reference
    turn); the shared opening request is ``<history>`` (context, not rated), the rest is the
    rated ``<interaction>``; the ground truth is what the user accepted (:func:`accepted_pois`);
    questions and abstentions are assistant turns without items.  With the run's
    ``predictions`` a recommend turn's items are the top :data:`CITABLE_TOP` POIs the system
    presented (as :func:`from_predictions`), not only the top-1 the user reacted to."""
    name = system or str(((d.get("metadata") or {}).get("live") or {}).get("baseline") or "live")
    t = from_dialogue(d, kb, name)
    turns = list(t.turns)
    for i, turn in enumerate(d["turns"]):
        pred = (predictions or {}).get((d["dialogue_id"], turn["turn_id"])) if turn["role"] == "system" else None
        if pred is not None:
            turns[i] = turns[i].model_copy(
                update={"items": [item_name(kb, p) for p in pred["ranked_poi_ids"][:CITABLE_TOP]]}
            )
    return t.model_copy(
        update={
            "dialogue_id": f"{name}/{d['dialogue_id']}",
            "turns": turns,
            "history_turns": min(opening_turns(d), len(t.turns) - 1),
        }
    )


def _first(rec: Mapping[str, Any], keys: tuple[str, ...]) -> Any:
    return next((rec[k] for k in keys if k in rec), None)


def _raw_role(t: Any) -> str:
    return str(t.get("role", t.get("speaker", ""))).strip().lower() if isinstance(t, dict) else ""


def _chat_system_turn(turns: list[Any]) -> int | None:
    """The first ``system`` turn of a log that also has ``assistant`` (or another CRS synonym)
    turns: there ``system`` is a chat API's instruction to the model, not the CRS speaking."""
    raw = [_raw_role(t) for t in turns]
    crs = {r for r in raw if ROLE_SYNONYMS.get(r) == "assistant"} - {"system"}
    return raw.index("system") if crs and "system" in raw else None


def _items(t: dict, file: str, line: int | None, i: int) -> list[str]:
    """A turn's recommended items: a list of names (a bare string would be read letter by letter)."""
    key = next((k for k in ITEM_KEYS if k in t), None)
    value = t[key] if key else None
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(x, str | int) for x in value):
        raise DataError(
            f"expected a list of item names, got {value!r:.60}", file=file, line=line, field=f"turns.{i}.{key}"
        )
    return [str(x) for x in value]


def from_generic(rec: Any, file: str = "<memory>", line: int | None = None) -> Transcript:
    """A generic CRS log record (module docstring); unknown roles or a turn without text raise
    :class:`DataError` naming file, line and field.  Roles are read case- and space-insensitively;
    ``system`` is the CRS unless the log also has ``assistant`` turns (a chat API's layout, where
    ``system`` is the instruction): that mix is refused rather than judged as the CRS speaking.
    Items are read from assistant turns only (a user turn's mentioned items are not the system's
    recommendations); other fields of a record or turn are not part of the layout and are not read."""
    if not isinstance(rec, dict) or not isinstance(rec.get("turns"), list):
        got = type(rec).__name__ if not isinstance(rec, dict) else f"keys {sorted(rec)[:6]}"
        raise DataError(
            f"expected an object with a 'turns' list, got {got} (one transcript per line)",
            file=file,
            line=line,
            field="turns",
        )
    chat = _chat_system_turn(rec["turns"])
    if chat is not None:
        raise DataError(
            "role 'system' beside 'assistant' turns: in a chat-API log 'system' is the model's instruction, "
            "not the CRS; drop those turns (or call the CRS 'system' throughout)",
            file=file,
            line=line,
            field=f"turns.{chat}.role",
        )
    turns = []
    for i, t in enumerate(rec["turns"]):
        role = ROLE_SYNONYMS.get(_raw_role(t))
        if role is None:
            raise DataError(
                f"unknown role in {str(t)[:60]!r}; expected one of {sorted(ROLE_SYNONYMS)}",
                file=file,
                line=line,
                field=f"turns.{i}.role",
            )
        text = _first(t, TEXT_KEYS)
        if not isinstance(text, str):
            raise DataError(f"no text (one of {TEXT_KEYS})", file=file, line=line, field=f"turns.{i}.text")
        items = _items(t, file, line, i) if role == "assistant" else []
        turns.append({"role": role, "text": text, "items": items})
    known = {k: rec[k] for k in ("dialogue_id", "ground_truth", "history_turns", "system", "domain") if k in rec}
    return parse_transcript({**known, "turns": turns}, file, line)
