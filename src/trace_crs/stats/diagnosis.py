"""Variants that test the causes of the systematic deviations from the paper (Deviations page).

Every variant re-scores the same dialogues of one run, or scores a run on a changed corpus, and
every variant is computed — none is picked by how close it lands to the paper:

* scoring variants (:data:`SCORING_VARIANTS`, ``ScoreConfig`` readings of App. J; ``headline``
  is the definitions the book's tables use): ``ranked_list=response`` (the prediction list is
  the POIs the response names), ``t2r_count=system|all`` (T2R counts every system turn / every
  turn), ``text_reference=unquoted|quotes`` (BLEU / ROUGE-L without / on only the quoted spans);
* CGS formula variants (``cgs_formula=<name>``, :data:`trace_crs.stats.cgs_variants.CGS_VARIANTS`,
  App. L): the headline turns with CGS recombined from the same GS, CD and PC;
* corpus variants (``corpus_runs``: variant → run): a run of the same baselines on the same
  seeded dialogues with a changed input, e.g. ``kb_missingness`` = the KB with Yelp's attribute
  coverage applied (``trace-crs kb degrade``, :mod:`trace_crs.kb.missingness`), scored with the
  headline definitions.

:func:`diagnose` returns one row per (variant, baseline, dialogue): the dialogue's number of
scored turns, the *sum* of each turn metric over them (so that a turn mean over resampled
dialogues is Σ sums / Σ turns, the cluster bootstrap of ``stats.intervals``) and its dialogue
metrics.  ``trace-crs stats diagnose`` writes it (``mk/diagnosis.mk``); ``report.diagnosis``
reads it, adds the paper's values, intervals, Kendall τ and verdicts.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from trace_crs import DEFAULT_SEED
from trace_crs.atomic import write_atomic
from trace_crs.errors import UsageError
from trace_crs.stats.cgs_variants import CGS_VARIANTS
from trace_crs.stats.rescore import RunInputs, run_inputs

HEADLINE = "headline"
SCORING_VARIANTS: dict[str, dict[str, Any]] = {
    HEADLINE: {},
    "ranked_list=response": {"ranked_list": "response"},
    "t2r_count=system": {"t2r_count": "system"},
    "t2r_count=all": {"t2r_count": "all"},
    "text_reference=unquoted": {"text_reference": "unquoted"},
    "text_reference=quotes": {"text_reference": "quotes"},
}
TURN_METRICS: tuple[str, ...] = ("recall@1", "recall@3", "mrr", "bleu4", "rouge_l", "gs", "cd", "pc", "cgs")
DIALOGUE_METRICS: tuple[str, ...] = ("tsr", "t2r", "recovery_hits", "recovery_episodes")
KEY = ["variant", "baseline", "dialogue_id"]


def per_dialogue_rows(per_turn: pd.DataFrame, per_dialogue: pd.DataFrame, variant: str) -> pd.DataFrame:
    """One row per (baseline, dialogue): ``n_turns``, ``<metric>_sum`` of the turn metrics and the
    dialogue metrics, tagged ``variant``.  A dialogue without scored turns has ``n_turns`` 0."""
    sums = per_turn.groupby(["baseline", "dialogue_id"])[list(TURN_METRICS)].sum().add_suffix("_sum")
    sums.insert(0, "n_turns", per_turn.groupby(["baseline", "dialogue_id"]).size())
    out = per_dialogue.set_index(["baseline", "dialogue_id"])[list(DIALOGUE_METRICS)].join(sums, how="left")
    out["n_turns"] = out["n_turns"].fillna(0).astype(int)
    out = out.fillna({f"{m}_sum": 0.0 for m in TURN_METRICS})
    return out.reset_index().assign(variant=variant)[
        [*KEY, "n_turns", *(f"{m}_sum" for m in TURN_METRICS), *DIALOGUE_METRICS]
    ]


def cgs_formula_rows(per_turn: pd.DataFrame, per_dialogue: pd.DataFrame) -> list[pd.DataFrame]:
    """The headline turns with CGS recombined by each alternative formula (``cgs_formula=<name>``)."""
    gs, cd, pc = (per_turn[c].to_numpy(float) for c in ("gs", "cd", "pc"))
    return [
        per_dialogue_rows(per_turn.assign(cgs=fn(gs, cd, pc)), per_dialogue, f"cgs_formula={name}")
        for name, fn in CGS_VARIANTS.items()
        if name != "default"
    ]


def diagnose(
    results_dir: str | Path,
    run: str = "closed",
    corpus_runs: Mapping[str, str] | None = None,
    baselines: Sequence[str] | None = None,
    n_dialogues: int | None = None,
    seed: int = DEFAULT_SEED,
) -> pd.DataFrame:
    """Every variant of the module docstring on ``run`` (and ``corpus_runs``), a seeded sample of
    ``n_dialogues`` of its dialogues (all when None); columns ``run`` and ``n_dialogues`` added."""
    base = run_inputs(results_dir, run, baselines, n_dialogues, seed)
    frames = []
    for name, overrides in SCORING_VARIANTS.items():
        turns, dialogues = base.score(**overrides)
        frames.append(per_dialogue_rows(turns, dialogues, name).assign(run=run))
        if name == HEADLINE:
            frames += [f.assign(run=run) for f in cgs_formula_rows(turns, dialogues)]
    for name, other in (corpus_runs or {}).items():
        inputs = run_inputs(results_dir, other, baselines or base.baselines, n_dialogues, seed)
        _same_dialogues(base, inputs)
        turns, dialogues = inputs.score()
        frames.append(per_dialogue_rows(turns, dialogues, name).assign(run=other))
    out = pd.concat(frames, ignore_index=True)
    return out.assign(n_dialogues=len(base.dialogues))


def _same_dialogues(a: RunInputs, b: RunInputs) -> None:
    """A corpus variant must answer exactly the dialogues of the run it is compared with."""
    ids_a, ids_b = [d["dialogue_id"] for d in a.dialogues], [d["dialogue_id"] for d in b.dialogues]
    if ids_a != ids_b:
        raise UsageError(
            f"run '{b.run}' evaluated other dialogues than run '{a.run}' "
            f"({len(ids_b)} vs {len(ids_a)}); evaluate it with the same corpus, subset and seed"
        )


def parse_corpus_runs(text: str | None) -> dict[str, str]:
    """``"kb_missingness=closed_missing,…"`` → ``{"kb_missingness": "closed_missing", …}``."""
    out: dict[str, str] = {}
    for part in (p.strip() for p in (text or "").split(",") if p.strip()):
        name, sep, run = part.partition("=")
        if not sep or not name or not run:
            raise UsageError(f"--corpus-runs {part!r}: expected VARIANT=RUN")
        out[name] = run
    return out


def write(frame: pd.DataFrame, path: str | Path) -> Path:
    """Save the diagnosis frame as Parquet, atomically."""
    return write_atomic(path, lambda tmp: frame.to_parquet(tmp, index=False))


def turn_mean(frame: pd.DataFrame, metric: str) -> float:
    """Pooled turn mean of ``metric`` over the rows' turns (NaN with no turn)."""
    n = frame["n_turns"].sum()
    return float(frame[f"{metric}_sum"].sum() / n) if n else float(np.nan)
