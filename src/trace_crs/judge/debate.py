"""The four-role multi-agent debate that turns twelve factor results into one 0–100 score
(seed 001 §4.2, Table 4, App. H Tables 33–38).

Roles (``data/debate.yaml``): Common User (Effectiveness, Recoverability, Coherence), Domain
Expert — a local travel expert here (Novelty, Diversity, Groundness), Linguist (Grammatical
Correctness, Naturalness, Appropriateness), HCI Expert (Semantic Relevance, Explainability,
Proactiveness).  Each role sees the conversation log, only its own three factor results (Table 5
layout: ``dimension_name``, ``evaluation_result``, ``score``) and the chat buffer.

Rounds are simultaneous: in round *r* every role sees the buffer as it stood after round *r − 1*
(never a peer's statement of the same round); the four JSON statements ``{"evaluator",
"statement", "score", "round"}`` are appended together.  The debate stops when all four scores are
equal (unanimity) or after ``max_rounds`` (4) rounds; the final score is the mean of the last
round's four scores.  A statement that cannot be parsed (or a score outside 0–100) is retried like
a factor rating; if it still fails the debate has no score (``score=None`` with the error), and the
chat so far is kept.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from importlib import resources
from typing import Any

import dspy
import yaml

from trace_crs.judge.core import (
    FactorResult,
    UnusableReply,
    strict_adapter,
    with_retries,
)
from trace_crs.judge.domain import check_localised, current, expert, localise
from trace_crs.judge.factors import ROLES, factors, role_factors
from trace_crs.judge.transcript import Transcript
from trace_crs.prompts import signature

MAX_ROUNDS = 4


DebateTurn = signature("debate_turn", __name__)


@dataclass
class DebateResult:
    """Final score (mean of the last round, ``None`` on failure), rounds held, the whole chat."""

    score: float | None
    rounds: int
    chat: list[dict[str, Any]] = field(default_factory=list)
    unanimous: bool = False
    error: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@lru_cache(maxsize=1)
def debate_config() -> dict[str, Any]:
    """The parsed ``debate.yaml`` (task and role descriptions)."""
    return yaml.safe_load(resources.files("trace_crs.judge").joinpath("data/debate.yaml").read_text())


def factor_result_json(role: str, results: Mapping[str, FactorResult]) -> str:
    """The role's three factor results in Table 5's layout (a failed factor says so, unscored)."""
    rows = []
    for name in role_factors(role):
        r = results[name]
        text = r.rationale if r.rating is not None else f"(no rating: the evaluator failed: {r.error})"
        rows.append({"dimension_name": factors()[name].label, "evaluation_result": text, "score": r.rating})
    return json.dumps(rows, ensure_ascii=False, indent=1)


def _check_score(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 100:
        raise UnusableReply(f"score {value!r} is not an integer from 0 to 100")
    return value


class Debate(dspy.Module):
    """The four-role debate (module docstring): ``forward(transcript, results, lm)`` returns a
    ``dspy.Prediction`` with ``result`` = :class:`DebateResult`."""

    def __init__(self, max_rounds: int = MAX_ROUNDS, retries: int = 2) -> None:
        super().__init__()
        if max_rounds < 1:
            raise ValueError(f"max_rounds must be >= 1, got {max_rounds}")
        self.max_rounds, self.retries = max_rounds, retries
        self.turn = dspy.Predict(DebateTurn)

    def forward(self, transcript: Transcript, results: Mapping[str, FactorResult], lm: dspy.BaseLM) -> dspy.Prediction:
        cfg, log = debate_config(), transcript.log()
        domain = current()  # the rubric domain (trace_crs.judge.domain): travel as written, else localised
        self.turn = dspy.Predict(
            DebateTurn.with_instructions(check_localised(localise(DebateTurn.instructions), domain))
        )
        task = check_localised(localise(cfg["task"]), domain)
        chat: list[dict[str, Any]] = []
        for rnd in range(1, self.max_rounds + 1):
            seen = "<discussion>\n" + "\n".join(json.dumps(c, ensure_ascii=False) for c in chat) + "\n</discussion>"
            statements: list[dict[str, Any]] = []
            for role in ROLES:
                spec = cfg["roles"][role]
                text = expert() if role == "domain_expert" and expert() else localise(spec["description"])
                desc = {**spec, "description": check_localised(str(text), domain)}  # a str: expert() checked

                def call(note: str, role: str = role, desc: dict = desc, seen: str = seen) -> tuple[int, str]:
                    with dspy.context(lm=lm, adapter=strict_adapter()):
                        out = self.turn(
                            role=desc["description"],
                            task=task,
                            conversation=log,
                            evaluation_result=factor_result_json(role, results),
                            discussion=seen,
                            note=note,
                        )
                    return _check_score(out.score), str(out.statement)

                got, _, error = with_retries(call, self.retries)
                if got is None:
                    return dspy.Prediction(
                        result=DebateResult(None, rnd, chat + statements, error=f"{desc['name']}, round {rnd}: {error}")
                    )
                statements.append({"evaluator": desc["name"], "statement": got[1], "score": got[0], "round": rnd})
            chat += statements
            scores = [s["score"] for s in statements]
            if len(set(scores)) == 1 or rnd == self.max_rounds:
                return dspy.Prediction(
                    result=DebateResult(sum(scores) / len(scores), rnd, chat, unanimous=len(set(scores)) == 1)
                )
        raise AssertionError("unreachable")


def debate(
    t: Transcript, results: Mapping[str, FactorResult], lm: dspy.BaseLM, max_rounds: int = MAX_ROUNDS, retries: int = 2
) -> DebateResult:
    """Run the debate on one transcript's factor results (:class:`Debate`)."""
    return Debate(max_rounds, retries)(transcript=t, results=results, lm=lm).result
