"""The files of ``trace-crs judge validity`` (:mod:`trace_crs.cli.judge_validity`):
``validity.json``, ``scores.parquet`` and ``chosen.jsonl``, from the judged candidate files
present in the output directory (a candidate not judged yet is listed as such, never dropped)."""

from __future__ import annotations

import json
import shutil
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import yaml

from trace_crs.atomic import write_atomic
from trace_crs.judge import crsarena
from trace_crs.judge.factors import FACTORS
from trace_crs.judge.records import read_judged
from trace_crs.judge.transcript import Transcript
from trace_crs.judge.validity import agreement_table, beyond_length, choose, learned_floor, length_floor, split

LENGTH, LEARNED, FACE = "length floor", "learned floor (MiniLM ridge)", "FACE (published evaluator)"
ASPECTS = ("dialogue_overall", "understanding", "task_completion", "interest_arousal", "efficiency")
TURN_ASPECTS = ("turn_relevance", "turn_interestingness")


def published() -> dict[str, Any]:
    return yaml.safe_load(resources.files("trace_crs.judge").joinpath("data/crsarena_published.yaml").read_text())


def _judged(path: Path, score_field: str) -> tuple[pd.Series, dict[str, Any]]:
    """A candidate's score per conversation and its failure / cost summary."""
    recs = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    frame = read_judged(path).set_index("dialogue_id")
    score = pd.Series({r["dialogue_id"]: r.get(score_field) for r in recs}, dtype=float)
    ratings = frame[list(FACTORS)].to_numpy(float)
    masses = [s["mass"] for r in recs for s in (r.get("scores") or {}).values() if isinstance(s, dict) and "mass" in s]
    first = recs[0] if recs else {}
    summary = {
        "n": len(recs),
        "judge": first.get("judge"),
        "mode": first.get("mode"),
        "rating": first.get("rating"),
        "prompt_version": first.get("prompt_version"),
        "failed_factor_share": float(np.isnan(ratings).mean()) if ratings.size else float("nan"),
        "unscored_transcripts": int(score.isna().sum()),
        "mean_digit_mass": float(np.mean(masses)) if masses else None,
        "distinct_scores": int(score.nunique()),
        "per_transcript": {
            k: float(frame[k].mean()) for k in ("calls", "prompt_tokens", "completion_tokens", "model_s")
        },
    }
    return score, summary


def _finite(value: Any) -> Any:
    """``value`` with NaN / inf as ``None`` (JSON has no NaN) and NumPy scalars as Python's."""
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(v) for v in value]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not np.isfinite(value):
        return None
    return value


def report(
    cfg: dict[str, Any],
    convs: Sequence[crsarena.ArenaConversation],
    transcripts: Sequence[Transcript],
    out: Path,
    face_path: str | None,
    config_path: str,
) -> dict[str, Any]:
    human = crsarena.human_aspects(list(convs)).set_index("dialogue_id")
    by_system: dict[str, list[str]] = {}
    for cid, system in human["system"].items():
        by_system.setdefault(str(system), []).append(str(cid))
    half = pd.Series(split(by_system, cfg["seed"])).reindex(human.index)
    texts = pd.Series({t.dialogue_id: "\n".join(x.text for x in t.turns if x.role == "assistant") for t in transcripts})
    words = pd.Series({t.dialogue_id: crsarena.system_words(t) for t in transcripts})
    aspect = cfg["aspect"]
    scores: dict[str, pd.Series] = {}
    judged: dict[str, Any] = {}
    for name in cfg["candidates"]:
        path = out / f"judged_{name}.jsonl"
        if path.exists():
            scores[name], judged[name] = _judged(path, cfg["score_field"])
        else:
            judged[name] = None
    judged_names = [c for c in cfg["candidates"] if judged[c] is not None]
    scores[LENGTH] = length_floor(words)
    scores[LEARNED] = learned_floor(texts.reindex(human.index), human[aspect], half, cfg["seed"])
    if face_path:
        face = crsarena.face_predictions(face_path).set_index("dialogue_id")
        scores[FACE] = face[aspect].reindex(human.index)
    aspects = [aspect, *(a for a in (*ASPECTS, *TURN_ASPECTS) if a in human.columns and a != aspect)]
    table = agreement_table(scores, human, aspects, half, cfg["n_boot"], cfg["seed"])
    evidence = choose(table, judged_names, aspect) if judged_names else None
    chosen = cfg["chosen"]
    if judged[chosen] is not None:
        source = out / f"judged_{chosen}.jsonl"
        write_atomic(out / "chosen.jsonl", lambda tmp: shutil.copyfile(source, tmp))
    frame = human.assign(half=half).join(pd.DataFrame(scores).add_prefix("score:"))
    frame.index.name = "dialogue_id"
    write_atomic(out / "scores.parquet", lambda tmp: frame.reset_index().to_parquet(tmp, index=False))
    rows = table.to_dict(orient="records")
    beyond = [
        {"score": name, "half": which, **beyond_length(score.reindex(ids), human[aspect].reindex(ids),
                                                       scores[LENGTH].reindex(ids), cfg["n_boot"], cfg["seed"])}
        for name, score in scores.items() if name != LENGTH
        for which, ids in (("reporting", half.index[half == "reporting"]), ("all", half.index))
    ]  # fmt: skip
    sel = table[(table["aspect"] == aspect)].set_index(["score", "half"])["rho"]
    summary = [
        f"{name}: rho(selection) {sel.get((name, 'selection'), float('nan')):.3f}, "
        f"rho(reporting) {sel.get((name, 'reporting'), float('nan')):.3f}, rho(all) {sel.get((name, 'all'), float('nan')):.3f}"
        for name in scores
    ]
    result = {
        "dataset": {"n": int(len(human)), "systems": {k: len(v) for k, v in sorted(by_system.items())}},
        "config": config_path,
        "score_field": cfg["score_field"],
        "aspect": aspect,
        "split": {
            "seed": cfg["seed"],
            "stratified_by": "system",
            "n_selection": int((half == "selection").sum()),
            "n_reporting": int((half == "reporting").sum()),
        },
        "selection_procedure": (
            f"highest Spearman rho of {cfg['score_field']} with {aspect} on the selection half among the judged "
            "candidates (ties: the earlier candidate); reported on the reporting half and on all; the learned floor "
            "is cross-fitted (fit on one half, applied to the other)"
        ),
        "candidates": {n: cfg["candidates"][n] for n in cfg["candidates"]},
        "judged": judged,
        "chosen": chosen,
        "chosen_by_evidence": evidence,
        "all_candidates_judged": len(judged_names) == len(cfg["candidates"]),
        "n_boot": cfg["n_boot"],
        "published": published(),
        "table": rows,
        "beyond_length": beyond,
        "summary": summary,
    }
    text = json.dumps(_finite(result), indent=1, sort_keys=True, allow_nan=False)
    write_atomic(out / "validity.json", lambda tmp: tmp.write_text(text + "\n", encoding="utf-8"))
    return result
