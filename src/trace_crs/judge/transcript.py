"""The transcript format every CoRE judge reads: any CRS conversation, not only Trace's.

JSON lines, one transcript per line (CoRE §4.1 and Fig. 13 "conversation log")::

    {"dialogue_id": "d1",
     "turns": [{"role": "user", "text": "A quiet Italian place in Tampa?"},
               {"role": "assistant", "text": "Try Luigi's: \\"calm patio\\" [R1]",
                "items": ["Luigi's"], "evidence": {"R1": "<review text>"}}],
     "ground_truth": ["Luigi's"], "history_turns": 0,
     "system": "tfidf", "domain": "restaurant"}

* ``role`` is ``user`` or ``assistant``; both must speak, a user turn must say something
  (non-blank after Unicode normalisation), an assistant turn may be empty (a system that did not
  answer that turn, as :mod:`trace_crs.judge.adapters` writes for a missing prediction), and the
  rated part must hold an assistant turn; ``items`` (optional) are the item names the system
  recommended at that turn (CoRE concatenates them into the session-level recommendation list);
  ``evidence`` (optional, Trace's extension) maps a citation label to the text it cites, so
  Groundness can be checked against the cited review where there is one.
* ``ground_truth`` (optional): the items the user was after (CoRE's ``<groundtruth_list>``).
* ``history_turns`` (optional, default 0): the first *n* turns are context only (``<history>``);
  the rest is the ``<interaction>`` being rated.
* ``system`` (optional): the CRS that produced the transcript, for system-ranking agreement;
  ``domain`` (optional): ``restaurant`` / ``hotel`` / ``attraction`` / anything else, which
  picks the Diversity feature dimensions.

:func:`load_transcripts` raises :class:`~trace_crs.errors.DataError` naming file, line and field.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from html import escape
from pathlib import Path
from typing import Annotated, Literal, TypeVar

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError, model_validator

from trace_crs.errors import DataError
from trace_crs.kb.schema import bad_id
from trace_crs.kb.store import iter_jsonl


def _visible_text(value: str) -> str:
    visible = "".join(c for c in unicodedata.normalize("NFKC", value) if unicodedata.category(c) not in ("Cf", "Cc"))
    if not visible.strip():
        raise ValueError("empty user text (blank after Unicode normalisation): the user said nothing")
    return value


def checked_id(value: str) -> str:
    """An id validator for pydantic models: refuses blank ids and invisible/control characters."""
    if bad_id(value):
        raise ValueError(f"{value!r:.60} is blank or holds invisible/control characters")
    return value


M = TypeVar("M", bound=BaseModel)


class Turn(BaseModel):
    """One utterance of a transcript."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    role: Literal["user", "assistant"]
    text: str

    @model_validator(mode="after")
    def _user_said_something(self) -> Turn:
        if self.role == "user":
            _visible_text(self.text)
        return self

    items: list[str] = Field(default_factory=list)
    evidence: dict[str, str] = Field(default_factory=dict)


def _two_speakers(turns: list[Turn]) -> list[Turn]:
    roles = {t.role for t in turns}
    if roles != {"user", "assistant"}:  # CoRE rates an exchange between a user and a CRS (§4.1)
        raise ValueError(f"only one speaker ({', '.join(sorted(roles))}); a transcript needs user and assistant turns")
    return turns


class Transcript(BaseModel):
    """One conversation between a user and a CRS (module docstring)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    dialogue_id: Annotated[str, AfterValidator(checked_id)]
    turns: Annotated[list[Turn], Field(min_length=1), AfterValidator(_two_speakers)]
    ground_truth: list[str] = Field(default_factory=list)
    history_turns: int = Field(default=0, ge=0)
    system: str | None = None
    domain: str | None = None

    @model_validator(mode="after")
    def _history_within_turns(self) -> Transcript:
        if self.history_turns >= len(self.turns):
            raise ValueError(f"history_turns={self.history_turns} leaves no turn to rate ({len(self.turns)} turns)")
        if not any(t.role == "assistant" for t in self.turns[self.history_turns :]):
            raise ValueError("no assistant turn after the history: nothing of the system to rate")
        return self

    @property
    def recommended(self) -> list[str]:
        """Session-level recommendation list: every turn's items in order, first mention kept
        (CoRE §6.5 concatenates the per-round lists)."""
        seen: dict[str, None] = {}
        for t in self.turns[self.history_turns :]:
            for item in t.items:
                seen.setdefault(item, None)
        return list(seen)

    @property
    def recall(self) -> float | None:
        """Recall of the ground truth in the session-level list, |GT ∩ recommended| / |GT|
        (CoRE Table 7's Recall row); ``None`` without a ground truth."""
        if not self.ground_truth:
            return None
        shown = set(self.recommended)
        return sum(g in shown for g in self.ground_truth) / len(self.ground_truth)

    @property
    def evidence(self) -> dict[str, str]:
        """Every cited text of the rated turns, by ``turn<i>:<label>`` (labels repeat across turns)."""
        return {
            f"turn{i + 1}:{k}": v
            for i, t in enumerate(self.turns)
            if i >= self.history_turns
            for k, v in sorted(t.evidence.items())
        }

    def log(self) -> str:
        """The conversation log shown to a judge, in CoRE's Fig. 13 layout (system = ``<system>``)."""

        def block(turns: Iterable[Turn]) -> str:
            tag = {"user": "user", "assistant": "system"}
            return "\n".join(f"    <{tag[t.role]}>{escape(t.text, quote=False)}</{tag[t.role]}>" for t in turns)

        parts = [
            "<conversation>",
            "  <history>",
            block(self.turns[: self.history_turns]),
            "  </history>",
            "  <interaction>",
            block(self.turns[self.history_turns :]),
            "  </interaction>",
            "</conversation>",
            f"<system_recommend_list>{escape(', '.join(self.recommended) or '(none)')}</system_recommend_list>",
            f"<groundtruth_list>{escape(', '.join(self.ground_truth) or '(not given)')}</groundtruth_list>",
        ]
        if self.evidence:
            parts += (
                ["<cited_reviews>"] + [f"  [{k}] {escape(v)}" for k, v in self.evidence.items()] + ["</cited_reviews>"]
            )
        return "\n".join(p for p in parts if p)


def parse_transcript(rec: object, file: str = "<memory>", line: int | None = None) -> Transcript:
    """Validate one record; a problem raises :class:`DataError` naming file, line and field."""
    return validate_record(Transcript, rec, file, line)


def validate_record(model: type[M], rec: object, file: str, line: int | None) -> M:
    """``rec`` as a ``model``; a problem raises :class:`DataError` naming file, line and the
    field pydantic reports first (union tags such as ``int``/``float`` dropped from its path)."""
    if not isinstance(rec, dict):
        raise DataError("expected a JSON object", file=file, line=line, field="<record>")
    try:
        return model.model_validate(rec)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"] if p not in ("int", "float")) or "<record>"
        msg = err["msg"].removeprefix("Value error, ")[:300]
        raise DataError(f"{msg} (got {err.get('input')!r:.60})", file=file, line=line, field=where) from None


def load_transcripts(path: str | Path) -> list[Transcript]:
    """Every transcript of a JSON-lines file, in file order; an empty file or a repeated
    ``dialogue_id`` is an error."""
    out: list[Transcript] = []
    seen: dict[str, int] = {}
    for lineno, rec in iter_jsonl(path):
        t = parse_transcript(rec, str(path), lineno)
        if t.dialogue_id in seen:
            raise DataError(
                f"duplicate {t.dialogue_id!r} (first on line {seen[t.dialogue_id]})",
                file=str(path),
                line=lineno,
                field="dialogue_id",
            )
        seen[t.dialogue_id] = lineno
        out.append(t)
    if not out:
        raise DataError("no transcripts (empty file)", file=str(path))
    return out


def transcript_record(t: Transcript) -> dict:
    """The JSON record of ``t`` with unset optional fields left out (round-trips through
    :func:`parse_transcript`)."""
    rec = t.model_dump(exclude_defaults=True)
    rec["turns"] = [tt.model_dump(exclude_defaults=True) for tt in t.turns]
    return rec
