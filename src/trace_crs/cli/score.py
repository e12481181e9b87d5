"""``trace-crs score``: score any system's predictions on Trace (issue 5 item 9, ARCHITECTURE §5).

Writes the aggregate JSON (``--out``, default ``<predictions stem>.score.json`` beside the
predictions) with ``<out stem>.per_turn.parquet`` and ``<out stem>.per_dialogue.parquet``
beside it, and the per-turn table as CSV when ``--per-turn`` is given.  Entailment and the
LLM judge are opt-in (``--entailment``, ``--judge``); ``llm`` backends use the configured LM
(``--lm-model``, default the offline ``local`` model, via :func:`trace_crs.lm.backend.open_lm`).
"""
from __future__ import annotations

import argparse
import contextlib
import json
from pathlib import Path

from trace_crs.config import parse_overrides


def register(subparsers) -> None:  # noqa: ANN001
    """Add the ``score`` command."""
    p = subparsers.add_parser("score", help="score a predictions file with the Trace metrics",
                              description=__doc__.splitlines()[0])
    p.add_argument("--kb", required=True, help="KB directory")
    p.add_argument("--dialogues", required=True, help="dialogues JSON lines")
    p.add_argument("--predictions", required=True, help="predictions JSON lines (ARCHITECTURE §5)")
    p.add_argument("--dialogue-ids", help="JSON list of the dialogue ids to score (a run's dialogue_ids.json, "
                   "for runs on a seeded subset); default: every dialogue in --dialogues")
    p.add_argument("--pool", default="closed", help="candidate pool the predictions used: closed|16|32|open")
    p.add_argument("--fuzzy-threshold", type=float, default=0.80, help="GS fuzzy match threshold")
    p.add_argument("--cd-gate", type=float, default=0.05, help="CGS citation-density gate")
    p.add_argument("--pc-window", type=int, default=80, help="PC citation window (characters)")
    p.add_argument("--spatial-km", type=float, default=2.0, help="spatial coherence distance (km)")
    p.add_argument("--entailment", default="none", help="none | embedding | llm | hf:DIR")
    p.add_argument("--judge", default="none", help="none | judge LM model (e.g. local)")
    p.add_argument("--judge-n", type=int, default=200, help="turns judged (seeded subset)")
    p.add_argument("--lm-model", default="local", help="LM for --entailment llm")
    p.add_argument("--per-turn", help="also write the per-turn table to this CSV")
    p.add_argument("--out", help="aggregate JSON path (default: beside the predictions)")
    p.add_argument("--strict", action="store_true", help="a missing prediction is an error")
    p.add_argument("--seed", type=int, default=42)
    p.set_defaults(func=run)


def _lm(model: str, stack: contextlib.ExitStack):  # noqa: ANN202
    from trace_crs.lm.backend import open_lm
    from trace_crs.lm.config import resolve_lm_config

    return stack.enter_context(open_lm(resolve_lm_config(parse_overrides([f"model={model}"]))))


def restrict(dialogues: list[dict], ids_path: str | None) -> list[dict]:
    """The dialogues whose ids ``ids_path`` (a JSON list) names; an unknown id is an error."""
    if not ids_path:
        return dialogues
    ids = json.loads(Path(ids_path).read_text())
    if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
        raise ValueError(f"{ids_path}: expected a JSON list of dialogue ids")
    known = {d["dialogue_id"] for d in dialogues}
    unknown = sorted(set(ids) - known)
    if unknown:
        raise ValueError(f"{ids_path}: {len(unknown)} dialogue id(s) not in the corpus, e.g. {unknown[:3]}")
    keep = set(ids)
    return [d for d in dialogues if d["dialogue_id"] in keep]


def run(args: argparse.Namespace) -> int:
    """Load inputs, score, write the outputs, print the output path."""
    from trace_crs.dialogues.schema import load_dialogues
    from trace_crs.kb import load_kb
    from trace_crs.metrics.entailment import make_backend
    from trace_crs.metrics.judge import judge_columns
    from trace_crs.metrics.predictions import read_predictions
    from trace_crs.metrics.score import ScoreConfig, aggregate, score_predictions

    if not Path(args.kb).is_dir():
        raise FileNotFoundError(f"KB directory {args.kb} not found")
    if not Path(args.dialogues).exists():
        raise FileNotFoundError(f"dialogues file {args.dialogues} not found")
    cfg = ScoreConfig(pool=str(args.pool), fuzzy_threshold=args.fuzzy_threshold, cd_gate=args.cd_gate,
                      pc_window=args.pc_window, spatial_km=args.spatial_km, entailment=args.entailment,
                      judge=args.judge, judge_n=args.judge_n, strict=args.strict, seed=args.seed)
    kb = load_kb(args.kb)
    dialogues = restrict(load_dialogues(args.dialogues), args.dialogue_ids)
    predictions = read_predictions(args.predictions, dialogues, kb)
    with contextlib.ExitStack() as stack:
        ent = make_backend(args.entailment, _lm(args.lm_model, stack) if args.entailment == "llm" else None)
        scores = score_predictions(kb, dialogues, predictions, cfg, entailment=ent)
        if args.judge != "none":
            judged = judge_columns(kb, dialogues, predictions, scores.per_turn, _lm(args.judge, stack),
                                   n=cfg.judge_n, seed=cfg.seed)
            scores.per_turn = scores.per_turn.join(judged)
            scores.aggregate = aggregate(scores.per_turn, scores.per_dialogue, kb, cfg,
                                         scores.aggregate["n_missing"], ent)
    pred = Path(args.predictions)
    out = Path(args.out) if args.out else pred.with_name(pred.stem + ".score.json")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(scores.aggregate, indent=2, sort_keys=True, allow_nan=False) + "\n")
    scores.per_turn.to_parquet(out.with_name(out.stem + ".per_turn.parquet"), index=False)
    scores.per_dialogue.to_parquet(out.with_name(out.stem + ".per_dialogue.parquet"), index=False)
    if args.per_turn:
        scores.per_turn.to_csv(args.per_turn, index=False, float_format="%.6g")
    print(out)
    return 0
