"""The twelve CoRE factors in four dimensions and their 0–4 rubrics (seed 001 §4.1, Table 1, App. D).

The rubrics live in ``judge/data/rubrics.yaml`` (version ``core-tourism-v1``), adapted to tourism
and with the paper's gaps closed; every decision is recorded there beside the gap it closes
(``gaps``).  In short:

* count rubrics (Coherence, Recoverability, Grammatical Correctness, Groundness): the paper gives
  0 for "more than 4" problems, so exactly 4 was undefined — here ``score = max(0, 4 - n)``
  (:func:`count_score`), so 4 or more score 0;
* share rubrics (Proactiveness, Explainability; Semantic Relevance with its own cuts): "most",
  "about half", "a few" become shares (:func:`fraction_score`); Semantic Relevance, defined only
  at 4/2/0, gains 3 (≥ 3/4) and 1 (> 0);
* Appropriateness, defined only at 4 and 0, gains levels 1–3 (curt / dismissive / disrespectful
  without offensive language); Diversity's "exactly two characteristics" scores 1; Novelty's
  overlapping levels are read top-down; Groundness checks a cited claim against the cited
  review's text.

:func:`guideline` renders one factor as CoRE's ``<evaluation_guideline>`` block (Table 2).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any

import yaml

from trace_crs.judge.domain import check_localised, current, localise

SCORES = (0, 1, 2, 3, 4)
ROLES = ("common_user", "domain_expert", "linguist", "hci_expert")
FRACTION_CUTS = (2 / 3, 1 / 3)


@dataclass(frozen=True)
class Factor:
    """One factor's rubric (field meanings: header of ``rubrics.yaml``)."""

    name: str
    label: str
    dimension: str
    role: str
    definition: str
    standard: dict[int, str]
    steps: tuple[str, ...]
    rule: dict[str, Any]
    gaps: tuple[dict[str, str], ...]


@lru_cache(maxsize=1)
def rubric_file() -> dict[str, Any]:
    """The parsed ``rubrics.yaml``."""
    return yaml.safe_load(resources.files("trace_crs.judge").joinpath("data/rubrics.yaml").read_text())


@lru_cache(maxsize=1)
def factors() -> dict[str, Factor]:
    """The twelve factors by name, in Table 1 order; a rubric that leaves a score undefined or
    names an unknown dimension / role is a bug in the YAML (``ValueError``)."""
    data = rubric_file()
    out: dict[str, Factor] = {}
    for name, f in data["factors"].items():
        standard = {int(k): str(v) for k, v in f["standard"].items()}
        if set(standard) != set(SCORES):
            raise ValueError(f"rubrics.yaml: factor {name}: standard defines {sorted(standard)}, not 0-4")
        if f["dimension"] not in data["dimensions"] or f["role"] not in ROLES:
            raise ValueError(f"rubrics.yaml: factor {name}: unknown dimension or role")
        out[name] = Factor(
            name=name,
            label=f["label"],
            dimension=f["dimension"],
            role=f["role"],
            definition=f["definition"],
            standard=standard,
            steps=tuple(f["steps"]),
            rule=dict(f["rule"]),
            gaps=tuple(f["gaps"]),
        )
    return out


FACTORS: tuple[str, ...] = (
    "coherence",
    "recoverability",
    "proactiveness",
    "grammatical_correctness",
    "naturalness",
    "appropriateness",
    "effectiveness",
    "novelty",
    "diversity",
    "semantic_relevance",
    "explainability",
    "groundness",
)


def role_factors(role: str) -> tuple[str, ...]:
    """The three factors a debate role sees (§4.2)."""
    return tuple(n for n in FACTORS if factors()[n].role == role)


def count_score(n_problems: int) -> int:
    """Closed count rubric: ``max(0, 4 - n)`` (exactly 4 problems → 0)."""
    if n_problems < 0:
        raise ValueError(f"a problem count is >= 0, got {n_problems}")
    return max(0, 4 - n_problems)


def fraction_score(share: float, cuts: tuple[float, float] = FRACTION_CUTS) -> int:
    """Closed share rubric: 4 if all, 3 if ≥ ``cuts[0]``, 2 if ≥ ``cuts[1]``, 1 if > 0, else 0."""
    if not 0.0 <= share <= 1.0:
        raise ValueError(f"a share is in [0, 1], got {share}")
    if share == 1.0:
        return 4
    return 3 if share >= cuts[0] else 2 if share >= cuts[1] else 1 if share > 0 else 0


def rule_score(factor: str, value: float) -> int:
    """The score a count / fraction factor's closed rubric gives ``value`` (problems or share)."""
    rule = factors()[factor].rule
    if rule["kind"] == "count":
        return count_score(int(value))
    if rule["kind"] == "fraction":
        return fraction_score(value, tuple(rule.get("cuts", FRACTION_CUTS)))
    raise ValueError(f"factor {factor}: rubric kind {rule['kind']!r} is judged by levels, not computed")


def guideline(name: str) -> str:
    """CoRE's ``<evaluation_guideline>`` block (Table 2) for one factor, in the wording of the
    domain being judged (:mod:`trace_crs.judge.domain`; travel as written)."""
    f = factors()[name]
    standard = "\n".join(f"      {s} points: {f.standard[s]}" for s in sorted(SCORES, reverse=True))
    steps = "\n".join(f"      {i}. {s}" for i, s in enumerate(f.steps, start=1))
    text = (
        f'<evaluation_guideline factor="{f.label}">\n    <definition>\n      {f.definition}\n    </definition>\n'
        f"    <evaluation_standard>\n{standard}\n    </evaluation_standard>\n"
        f"    <evaluation_step>\n{steps}\n    </evaluation_step>\n</evaluation_guideline>"
    )
    return check_localised(localise(text), current())


def named_guidelines(names: Sequence[str] = FACTORS) -> str:
    """Several factors' guidelines, each tagged with its factor name (one-call mode, and the
    shared system message of the logprob mode)."""
    return "\n".join(
        guideline(n).replace("<evaluation_guideline ", f'<evaluation_guideline name="{n}" ') for n in names
    )
