r"""The form of Generator A's V2 output: a per-dialogue JSON Schema for constrained decoding,
the DSPy JSON adapter that sends it, and what the compact prompt shows of that form (a
suggested action sequence and a worked example).

llama-cpp-python's server turns ``{"type": "json_object", "schema": S}`` into a GBNF grammar,
so a small local model can only emit JSON that matches ``S`` (OpenAI-style
``{"type": "json_schema"}`` is ignored by that server, hence ``json_object`` + ``schema``).
The schema fixes the *form* of a V2 dialogue, never its content:

* 6, 8, 10 or 12 turns (even: user opens, system closes), ``turn_id`` = position,
  ``role`` alternating user/system;
* turn 1 is ``greet_and_seek``, the last turn ``farewell`` (and only the last one); other
  turns take their role's remaining actions;
* ids are drawn from the 8 candidates and the reviews shown in the prompt (with prompt
  v2-compact their labels P1… / R1…, else their ids); per action the number of ids is
  bounded (``ID_COUNTS``: a compare names exactly 2 POIs, user turns cite no review);
* keys come in the order turn_id, role, action, referenced_poi_ids, text,
  referenced_review_ids: action and POIs are chosen before the wording (which then copies
  the chosen POI's name and excerpts), the quoted reviews' labels are listed after it;
* a recommend/compare text opens a span ``"…" [Rn]`` within its first 160 characters, the
  quote 1–160 characters long (``CITED_TEXT``, written over the JSON-encoded string as
  llama.cpp's converter reads it, so a quote mark is ``\"``; the bounds stop a model that
  will not quote from looping) — the citation *syntax* only;
* ``multi_reference`` maps turn ids to lists of candidate ids.

What is quoted and from which review, the rejection count, ≥ 3 distinct recommendations,
a compare turn and an ask_preference turn are *not* forced: the model must write them, and
the validator (``validate.dialogue_failures``, unchanged) checks every dialogue as it does
for the simulator.

``suggested_actions(r)`` spells out one V2-conformant action sequence with ``r`` rejections,
which the compact prompt adds to the scenario as a suggestion (not enforced).

``demo(r)`` is a hand-written dialogue with ``r`` rejections over 4 fictional candidates in
the compact prompt's format (labelled candidates and excerpts).
"""

from __future__ import annotations

import json
from typing import Any

import dspy
from dspy.adapters.utils import serialize_for_json

from trace_crs.dialogues.schema import REC_ACTIONS, SYSTEM_ACTIONS, USER_ACTIONS

TURN_COUNTS: tuple[int, ...] = (6, 8, 10, 12)
# <= 160 chars without a quote mark, \"quote (1-160 chars)\" [Rn], any text: over the JSON-encoded string
CITED_TEXT = r'^([^"\\]|\\[^"]){0,160}\\"([^"\\]|\\[^"]){1,160}\\" \[R[0-9]+\]([^"\\]|\\.)*$'

OPEN, CLOSE = "greet_and_seek", "farewell"
# action -> ((min, max) referenced POI ids, (min, max) referenced review ids)
ID_COUNTS: dict[str, tuple[tuple[int, int], tuple[int, int]]] = {
    "greet_and_seek": ((0, 0), (0, 0)),
    "provide_preference": ((0, 1), (0, 0)),
    "reject_and_refine": ((0, 1), (0, 0)),
    "accept": ((0, 1), (0, 0)),
    "ask_preference": ((0, 0), (0, 0)),
    "recommend": ((1, 1), (1, 2)),
    "compare": ((2, 2), (2, 4)),
    "farewell": ((0, 1), (0, 0)),
}


def _ids(values: list[str], lo: int, hi: int) -> dict[str, Any]:
    if hi == 0 or not values:
        return {"type": "array", "maxItems": 0, "items": {"type": "string"}}
    return {"type": "array", "items": {"enum": list(values)}, "minItems": lo, "maxItems": hi}


def turn_variant(
    turn_id: int, role: str, action: str, poi_ids: list[str], review_ids: list[str], cite_pattern: bool = True
) -> dict[str, Any]:
    """The object schema of one turn with a fixed action."""
    (plo, phi), (rlo, rhi) = ID_COUNTS[action]
    text = {"type": "string", "pattern": CITED_TEXT} if cite_pattern and action in REC_ACTIONS else {"type": "string"}
    props = {
        "turn_id": {"const": turn_id},
        "role": {"const": role},
        "action": {"const": action},
        "referenced_poi_ids": _ids(poi_ids, plo, phi),
        "text": text,
        "referenced_review_ids": _ids(review_ids, rlo, rhi),
    }
    return {"type": "object", "properties": props, "required": list(props), "additionalProperties": False}


def position_actions(turn_id: int, n_turns: int) -> tuple[str, ...]:
    """Actions allowed at 1-based position ``turn_id`` of an ``n_turns`` dialogue."""
    if turn_id == 1:
        return (OPEN,)
    if turn_id == n_turns:
        return (CLOSE,)
    actions = USER_ACTIONS if turn_id % 2 == 1 else SYSTEM_ACTIONS
    return tuple(a for a in actions if a not in (OPEN, CLOSE))


def turn_schema(
    turn_id: int, n_turns: int, poi_ids: list[str], review_ids: list[str], cite_pattern: bool = True
) -> dict[str, Any]:
    role = "user" if turn_id % 2 == 1 else "system"
    variants = [
        turn_variant(turn_id, role, a, poi_ids, review_ids, cite_pattern) for a in position_actions(turn_id, n_turns)
    ]
    return variants[0] if len(variants) == 1 else {"anyOf": variants}


def output_schema(poi_ids: list[str], review_ids: list[str], cite_pattern: bool = True) -> dict[str, Any]:
    """JSON Schema of the whole V2 output ``{"turns": [...], "multi_reference": {...}}``
    (``cite_pattern=False`` drops ``CITED_TEXT``, e.g. to validate decoded JSON)."""
    turns = {
        "anyOf": [
            {
                "type": "array",
                "prefixItems": [turn_schema(i, n, poi_ids, review_ids, cite_pattern) for i in range(1, n + 1)],
                "minItems": n,
                "maxItems": n,
                "items": False,
            }
            for n in TURN_COUNTS
        ]
    }
    multi = {"type": "object", "additionalProperties": _ids(poi_ids, 0, len(poi_ids))}
    return {
        "type": "object",
        "properties": {"turns": turns, "multi_reference": multi},
        "required": ["turns", "multi_reference"],
        "additionalProperties": False,
    }


def action_plan(rejections: int) -> list[str]:
    """One V2-conformant action sequence with ``rejections`` reject_and_refine turns: ask,
    recommend, then per rejection a new recommend, and a compare (≤ 12 turns for ≤ 3)."""
    middle = ["reject_and_refine", "recommend"] * rejections
    if rejections >= 3:
        middle[-1] = "compare"  # the last recovery is the compare, to stay within 12 turns
    else:
        middle += ["provide_preference", "compare"]
    return ["greet_and_seek", "ask_preference", "provide_preference", "recommend", *middle, "accept", "farewell"]


def suggested_actions(rejections: int) -> str:
    """:func:`action_plan` as prompt text; every recommend brings in a new POI, the compare
    sets a POI not recommended yet against an earlier one (so ≥ 3 distinct POIs)."""
    plan, out, k = action_plan(rejections), [], 0
    for action in plan:
        if action == "recommend":
            k += 1
            action = f"recommend (POI {k}, new)"
        elif action == "compare":
            action = "compare (a POI not recommended yet vs an earlier one)"
        out.append(action)
    return ", ".join(out)


def response_format(schema: dict[str, Any]) -> dict[str, Any]:
    """The request's ``response_format`` for llama-cpp-python's server (grammar from ``schema``)."""
    return {"type": "json_object", "schema": schema}


class SchemaJSONAdapter(dspy.JSONAdapter):
    """``dspy.JSONAdapter`` that keeps a caller's ``response_format`` (passed in the predictor's
    ``config``) instead of choosing one from the LM's advertised capabilities."""

    def _prepare_response_format(self, lm: Any, lm_kwargs: dict[str, Any], signature: Any) -> None:
        if "response_format" not in lm_kwargs:
            super()._prepare_response_format(lm, lm_kwargs, signature)

    def format_field_with_value(self, fields_with_values: dict[Any, Any], role: str = "user") -> str:
        """As ``JSONAdapter``, but a demo's outputs are one-line JSON — the form the grammar
        makes the model write (``": "`` and ``", "`` separators), not indented JSON."""
        if role == "user":
            return super().format_field_with_value(fields_with_values, role)
        return json.dumps(serialize_for_json({k.name: v for k, v in fields_with_values.items()}), ensure_ascii=False)


def _candidate(n: int, name: str, stars: float, price: int, category: str, reviews: dict[int, str]) -> dict[str, Any]:
    """One candidate POI of the demo (label ``P<n>``, reviews ``R<k>``: text)."""
    return {
        "label": f"P{n}",
        "name": name,
        "stars": stars,
        "price": price,
        "categories": ["Restaurants", category],
        "reviews": [{"label": f"R{k}", "text": text} for k, text in reviews.items()],
    }


_DEMO_CANDIDATES = [
    _candidate(
        1,
        "Casa Verde",
        4.5,
        2,
        "Mexican",
        {
            1: "The mole was rich and smoky. Staff kept our water glasses full. Patio seating is lovely at sunset.",
            2: "Loud on Friday nights, so bring your patience. The tacos are worth it.",
        },
    ),
    _candidate(
        2,
        "Olive & Ash",
        4.0,
        3,
        "Italian",
        {
            3: "A quiet, candlelit room that is perfect for a date. The handmade pasta was excellent.",
            4: "Pricey but the wine list is superb.",
        },
    ),
    _candidate(
        3,
        "Desert Spoon",
        3.5,
        1,
        "Diners",
        {5: "Cheap and cheerful breakfast. The pancakes are huge.", 6: "Service was slow but friendly."},
    ),
    _candidate(
        4,
        "Saguaro Grill",
        4.0,
        2,
        "Steakhouses",
        {
            7: "Great steaks and a calm dining room. We could actually talk.",
            8: "Reservations are easy to get on weekdays.",
        },
    ),
]


def _turn(i: int, action: str, text: str, pois: tuple[str, ...] = (), reviews: tuple[str, ...] = ()) -> dict[str, Any]:
    return {
        "turn_id": i,
        "role": "user" if i % 2 else "system",
        "action": action,
        "referenced_poi_ids": [f"P{k}" for k in pois],
        "text": text,
        "referenced_review_ids": [f"R{k}" for k in reviews],
    }


_OPEN = [
    ("greet_and_seek", "Hi! My partner and I are in Tucson for the weekend. Where should we have dinner?"),
    ("ask_preference", "Happy to help! What kind of food do you like, and what is your budget?"),
    ("provide_preference", "Something special but not too expensive, with a nice atmosphere."),
    ("recommend", 'Casa Verde could fit: one guest wrote "Patio seating is lovely at sunset." [R1]', ("1",), ("1",)),
    ("reject_and_refine", "Sounds nice, but we want a quiet place where we can talk.", ("1",)),
    (
        "recommend",
        'Then try Saguaro Grill: a reviewer said "a calm dining room. We could actually talk." [R7]',
        ("4",),
        ("7",),
    ),
]
_CHEAPER = [
    ("reject_and_refine", "We would rather skip steak tonight. Is there something cheaper?", ("4",)),
    ("recommend", 'Desert Spoon is the budget pick: "Cheap and cheerful breakfast." [R5]', ("3",), ("5",)),
]
_ROMANTIC = ("provide_preference", "Good idea. Is there anything more romantic?")
_NOT_BREAKFAST = ("reject_and_refine", "We want dinner, not breakfast, and something romantic.", ("3",))
_COMPARE = (
    "compare",
    'Olive & Ash is "A quiet, candlelit room that is perfect for a date." [R3], while Saguaro Grill '
    'has "Great steaks and a calm dining room." [R7]',
    ("2", "4"),
    ("3", "7"),
)
_CLOSE = [("accept", "Olive & Ash it is, thank you!"), ("farewell", "Enjoy your dinner at Olive & Ash!")]
_DEMO_TURNS: dict[int, list[tuple[Any, ...]]] = {
    1: _OPEN + [_ROMANTIC, _COMPARE] + _CLOSE,
    2: _OPEN + _CHEAPER + [_ROMANTIC, _COMPARE] + _CLOSE,
    3: _OPEN + _CHEAPER + [_NOT_BREAKFAST, _COMPARE] + _CLOSE,
}


def demo(rejections: int) -> dict[str, Any]:
    """The worked example with ``rejections`` (1-3) reject_and_refine turns, following
    :func:`action_plan`; the compact prompt shows the one matching the scenario's count."""
    turns = [_turn(i, *t) for i, t in enumerate(_DEMO_TURNS[min(max(rejections, 1), 3)], 1)]
    return {
        "scenario": "persona: Dana, 41, a food lover travelling with a partner (foodie); context: weekend "
        f"getaway; city: Tucson; POI type: restaurant; difficulty: medium; rejections: {rejections}; "
        f"suggested actions: {suggested_actions(rejections)}",
        "candidates": json.dumps(_DEMO_CANDIDATES, ensure_ascii=False),
        "turns": turns,
        "multi_reference": {
            str(t["turn_id"]): ["P2"] if t["turn_id"] == 6 else [] for t in turns if t["action"] in REC_ACTIONS
        },
    }
