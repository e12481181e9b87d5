"""Re-read a run's inputs and predictions to re-score them at other settings (App. L, App. O).

Sensitivity sweeps (fuzzy threshold, spatial km, PC window, NLI threshold) and the error
analysis need more than the stored score files: the KB, the dialogues and the predictions of
a run (ARCHITECTURE §4).  :func:`run_inputs` reads them once — KB and dialogue paths from the
run's resolved ``config.yaml`` (relative to the working directory, the repo root under
``make paper``), the runner's own seeded subset (``dialogues.subset.select_subset``), then an
optional further seeded subset of ``n_dialogues`` — and :meth:`RunInputs.score` re-scores
every baseline through ``trace_crs.metrics.score.score_predictions`` with config overrides.
Nothing here computes a metric: scores come from ``metrics``.  Used by
:mod:`trace_crs.stats.sensitivity` (``trace-crs stats sensitivity``), whose outputs the book reads.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd
import yaml

from trace_crs import DEFAULT_SEED
from trace_crs import results_layout as layout
from trace_crs.dialogues import load_dialogues
from trace_crs.dialogues.subset import select_subset
from trace_crs.kb import KB, load_kb
from trace_crs.kb.store import iter_jsonl
from trace_crs.metrics.entailment import Backend, claim_sentences
from trace_crs.metrics.predictions import Key, cited_texts, index_predictions, scored_turns
from trace_crs.metrics.score import ScoreConfig, score_predictions
from trace_crs.results_layout import require

EMPTY = {"ranked_poi_ids": [], "text": "", "citations": []}  # a missing prediction, as in scoring


@dataclass
class RunInputs:
    """KB, (subset of) dialogues and validated predictions of one run, per baseline."""

    run: str
    kb: KB
    dialogues: list[dict[str, Any]]
    predictions: dict[str, dict[Key, dict]]

    @property
    def baselines(self) -> list[str]:
        return sorted(self.predictions)

    def score(self, entailment: Backend | None = None, **overrides: Any) -> tuple[pd.DataFrame, pd.DataFrame]:
        """``(per_turn, per_dialogue)`` of every baseline (``baseline`` column first) re-scored
        with ``ScoreConfig(**overrides)``."""
        cfg = dataclasses.replace(ScoreConfig(), **overrides)
        turns, dialogues = [], []
        for name in self.baselines:
            s = score_predictions(self.kb, self.dialogues, self.predictions[name], cfg, entailment)
            turns.append(s.per_turn.assign(baseline=name))
            dialogues.append(s.per_dialogue.assign(baseline=name))
        return _first(pd.concat(turns, ignore_index=True)), _first(pd.concat(dialogues, ignore_index=True))

    def turns(self) -> pd.DataFrame:
        """One row per (baseline, reference recommend/compare turn): ``baseline, dialogue_id,
        turn_id, text, cited`` ({label: review text}), ``gold, ranked`` and ``user_history``
        (user turn texts up to this turn) — the inputs of ``metrics.errors``."""
        rows = []
        refs = scored_turns(self.dialogues)
        history = {d["dialogue_id"]: d["turns"] for d in self.dialogues}
        for name in self.baselines:
            for (did, tid), turn in refs.items():
                pred = self.predictions[name].get((did, tid), EMPTY)
                rows.append(
                    {
                        "baseline": name,
                        "dialogue_id": did,
                        "turn_id": tid,
                        "text": pred["text"],
                        "cited": cited_texts(self.kb, pred),
                        "gold": list(turn.get("gold_poi_ids") or []),
                        "ranked": list(pred["ranked_poi_ids"]),
                        "user_history": [t["text"] for t in history[did] if t["role"] == "user" and t["turn_id"] < tid],
                    }
                )
        return pd.DataFrame(rows)

    def claim_probabilities(self, backend: Backend) -> pd.DataFrame:
        """``baseline, dialogue_id, turn_id, claim, prob``: per claim sentence
        (``metrics.entailment.claim_sentences``) the backend's max p(review ⊨ claim) over the
        turn's resolved cited reviews, the quantity the entailment metric thresholds."""
        claims = [
            (t.baseline, t.dialogue_id, t.turn_id, c, sorted(set(t.cited.values())))
            for t in self.turns().itertuples()
            for c in claim_sentences(t.text)
            if t.cited
        ]
        pairs = sorted({(r, c) for *_, c, reviews in claims for r in reviews})
        prob = dict(zip(pairs, backend.probabilities(pairs), strict=False)) if pairs else {}  # one batched call
        rows = [(b, d, t, c, float(max(prob[(r, c)] for r in reviews))) for b, d, t, c, reviews in claims]
        return pd.DataFrame(rows, columns=["baseline", "dialogue_id", "turn_id", "claim", "prob"])


def _first(frame: pd.DataFrame) -> pd.DataFrame:
    return frame[["baseline", *[c for c in frame.columns if c != "baseline"]]]


def run_inputs(
    results_dir: str | Path,
    run: str,
    baselines: Sequence[str] | None = None,
    n_dialogues: int | None = None,
    seed: int = DEFAULT_SEED,
) -> RunInputs:
    """Read run ``run``: its KB, its dialogues (``n_dialogues`` drawn with ``seed`` from the
    run's own subset; all when None) and the predictions of ``baselines`` (all when None)."""
    config_path = require(layout.run_file(results_dir, run, layout.RUN_CONFIG), f"config of run '{run}'")
    config = yaml.safe_load(config_path.read_text()) or {}
    kb = load_kb(require(config["kb"], f"KB of run '{run}'"))
    corpus = load_dialogues(require(config["dialogues"], f"dialogues of run '{run}'"))
    dialogues = select_subset(
        select_subset(corpus, config.get("subset"), int(config.get("seed", DEFAULT_SEED))), n_dialogues, seed
    )
    folder = require(layout.predictions(results_dir, run), f"predictions of run '{run}'")
    names = sorted(p.name[: -len(".jsonl")] for p in folder.glob("*.jsonl")) if baselines is None else list(baselines)
    keep = {d["dialogue_id"] for d in dialogues}
    predictions: dict[str, dict[Key, dict]] = {}
    for name in names:
        path = require(folder / f"{name}.jsonl", f"predictions of '{name}' in run '{run}'")
        records = ((f"{path}:{n}", rec) for n, rec in iter_jsonl(path) if rec.get("dialogue_id") in keep)
        predictions[name] = index_predictions(records, dialogues, kb)
    return RunInputs(run, kb, dialogues, predictions)
