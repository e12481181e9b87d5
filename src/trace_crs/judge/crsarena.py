"""CRSArena-Eval (human-labelled movie CRS conversations) as judge transcripts and human aspects.

The data set's own layout (``../shared/data/crsarena-eval-dev/README.md``; FACE's
``dataset/README.md``): a JSON array of ``{"conv_id", "dialogue": [{"turn_ind", "role":
"USER"|"ASST", "utterance", "turn_level_aggregated"?: {aspect: number}}], "dial_level_aggregated":
{aspect: number}}``, and FACE's run file ``[{"conv_id", "turns": [{"turn_ind",
"turn_level_pred"}], "dial_level_pred": {aspect: number}}]``.

* :func:`load` — the conversations, typed (pydantic); a problem is a
  :class:`~trace_crs.errors.DataError` at file, line and field.
* :func:`to_transcript` — one conversation as a CoRE transcript (domain ``movies``, the whole
  conversation rated: the first user turn is the request, not history; ``system`` = the CRS and its
  training set, ``barcor_opendialkg``, as the data set's evaluator groups them).
* :func:`human_aspects` — one row per conversation: every dialogue-level aspect the file holds and
  the turn-level aspects averaged over the assistant turns that carry them (``turn_<aspect>``).
* :func:`face_predictions` — FACE's dialogue-level predictions in the same layout.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, Literal

import pandas as pd
from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from trace_crs.errors import DataError
from trace_crs.judge.label_file import iter_records
from trace_crs.judge.transcript import Transcript, checked_id, parse_transcript, validate_record

SYSTEM = re.compile(r"^([^_]+_[^_]+)_")  # "barcor_opendialkg_<uuid>" -> "barcor_opendialkg"
OVERALL = "dialogue_overall"  # the human overall impression, 0-4
Score = Annotated[float, Field(ge=0, allow_inf_nan=False)]


class ArenaTurn(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    turn_ind: int = Field(ge=0)
    role: Literal["USER", "ASST"]
    utterance: str
    turn_level_aggregated: dict[str, Score] | None = None


class ArenaConversation(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    conv_id: Annotated[str, AfterValidator(checked_id), Field(pattern=SYSTEM.pattern)]
    dialogue: Annotated[list[ArenaTurn], Field(min_length=2)]
    dial_level_aggregated: dict[str, Score]


class FaceTurn(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    turn_ind: int = Field(ge=0)
    turn_level_pred: dict[str, float]


class FacePrediction(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    conv_id: Annotated[str, AfterValidator(checked_id)]
    turns: list[FaceTurn] = Field(default_factory=list)
    dial_level_pred: dict[str, float]


def _typed(path: str | Path, model: type[BaseModel]) -> list:
    out: list = []
    seen: dict[str, int] = {}
    for line, rec in iter_records(path):
        item = validate_record(model, rec, str(path), line)
        cid = item.conv_id  # type: ignore[attr-defined]
        if cid in seen:
            raise DataError(
                f"duplicate {cid!r} (first on line {seen[cid]})", file=str(path), line=line, field="conv_id"
            )
        seen[cid] = line
        out.append(item)
    if not out:
        raise DataError("no conversations (empty file)", file=str(path))
    return out


def load(path: str | Path) -> list[ArenaConversation]:
    """Every conversation of a CRSArena-Eval file, in file order."""
    return _typed(path, ArenaConversation)


def system_of(conv_id: str) -> str:
    hit = SYSTEM.match(conv_id)
    if hit is None:  # ArenaConversation's pattern already refuses these
        raise ValueError(f"conv_id {conv_id!r} names no system")
    return hit.group(1)


def to_transcript(c: ArenaConversation) -> Transcript:
    """The conversation as a transcript (module docstring)."""
    role = {"USER": "user", "ASST": "assistant"}
    turns = [{"role": role[t.role], "text": t.utterance} for t in sorted(c.dialogue, key=lambda t: t.turn_ind)]
    rec = {"dialogue_id": c.conv_id, "turns": turns, "system": system_of(c.conv_id), "domain": "movies"}
    return parse_transcript(rec, "<crsarena>", None)


def human_aspects(convs: list[ArenaConversation]) -> pd.DataFrame:
    """One row per conversation (``dialogue_id``, ``system``, the aspects; NaN where absent)."""
    rows = []
    for c in convs:
        row: dict[str, object] = {"dialogue_id": c.conv_id, "system": system_of(c.conv_id)}
        row.update(c.dial_level_aggregated)
        per_turn: dict[str, list[float]] = {}
        for t in c.dialogue:
            for name, v in (t.turn_level_aggregated or {}).items():
                per_turn.setdefault(name, []).append(v)
        row.update({f"turn_{n}": sum(vs) / len(vs) for n, vs in per_turn.items()})
        rows.append(row)
    return pd.DataFrame(rows)


def face_predictions(path: str | Path) -> pd.DataFrame:
    """FACE's dialogue-level predictions, one row per conversation."""
    rows = [{"dialogue_id": p.conv_id, **p.dial_level_pred} for p in _typed(path, FacePrediction)]
    return pd.DataFrame(rows)


def system_words(t: Transcript) -> int:
    """Words in the system's turns (the length floor's score)."""
    return sum(len(turn.text.split()) for turn in t.turns if turn.role == "assistant")
