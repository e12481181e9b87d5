"""``trace-crs score``: score any system's predictions on Trace (ARCHITECTURE §5).

Writes the aggregate JSON (``--out``, default ``<predictions stem>.score.json`` beside the
predictions) with ``<out stem>.per_turn.parquet`` and ``<out stem>.per_dialogue.parquet``
beside it, and the per-turn table as CSV when ``--per-turn`` is given.  The outputs are
one commit (:func:`trace_crs.atomic.commit_files`): all are written to temporary siblings,
then renamed into place with the JSON last, so a JSON never disagrees with its tables; an
output path that is, holds or lies inside an input is refused.  A one-screen summary (and a warning naming the number of missing turns,
which score 0) goes to stderr; the output path to stdout.  Entailment and the
LLM judge are opt-in (``--entailment``, ``--judge``); ``llm`` backends use the configured LM
(``--lm-model``, default the offline ``local`` model, via :func:`trace_crs.lm.backend.open_lm`).
The judge rates the seeded turns of :func:`trace_crs.metrics.judge.judged_turns` (the same for
every baseline) and its LM usage goes into the aggregate as ``judge_usage``.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from trace_crs.atomic import commit_files, refuse_overlap
from trace_crs.cli import given_flags
from trace_crs.cli.arguments import add_config, add_dialogues, add_kb, add_out, add_quiet, add_seed
from trace_crs.config import POOLS, ScoreConfig, load_config
from trace_crs.dialogues.schema import Dialogue
from trace_crs.errors import DataError, UsageError
from trace_crs.results_layout import score_outputs

if TYPE_CHECKING:
    from trace_crs.metrics.score import ScoreFile

SUMMARY = ("recall@1", "recall@3", "mrr", "mr_recall@1", "gs", "cd", "pc", "cgs", "tsr", "t2r", "rejection_recovery")


def register(subparsers) -> None:
    """Add the ``score`` command."""
    p = subparsers.add_parser(
        "score", help="score a predictions file with the Trace metrics", description=__doc__.splitlines()[0]
    )
    add_kb(p, required=True)
    add_dialogues(p, "dialogues JSON lines", required=True)
    p.add_argument("--predictions", required=True, help="predictions JSON lines (ARCHITECTURE §5)")
    p.add_argument(
        "--dialogue-ids",
        help="JSON list of the dialogue ids to score (a run's dialogue_ids.json, "
        "for runs on a seeded subset); default: every dialogue in --dialogues",
    )
    add_config(
        p,
        "score config: ScoreConfig keys, or a configs/<profile>/<run>.yaml (its score: section)",
        "override a score config key",
    )
    p.add_argument(
        "--pool",
        default=None,
        choices=POOLS,
        help="candidate pool the predictions used (ranked ids outside it are an error)",
    )
    p.add_argument("--fuzzy-threshold", type=float, default=None, help="GS fuzzy match threshold")
    p.add_argument("--cd-gate", type=float, default=None, help="CGS citation-density gate")
    p.add_argument("--pc-window", type=int, default=None, help="PC citation window (characters)")
    p.add_argument("--spatial-km", type=float, default=None, help="spatial coherence distance (km)")
    p.add_argument("--entailment", default=None, help="none | embedding | llm | hf:DIR")
    p.add_argument(
        "--judge", default=None, help="none | local | local weights name | litellm model | " "key=value,... LM settings"
    )
    p.add_argument("--judge-n", type=int, default=None, help="judged dialogues, one turn each (seeded subset)")
    p.add_argument("--lm-model", default="local", help="LM for --entailment llm")
    p.add_argument("--per-turn", help="also write the per-turn table to this CSV")
    add_out(p, "aggregate JSON path (default: beside the predictions)")
    p.add_argument("--strict", action="store_true", default=None, help="a missing prediction is an error")
    add_seed(p, "seed of the judged subset", from_config=True)
    add_quiet(p, "no summary table on stderr (warnings stay)")
    p.set_defaults(func=run)


def score_config(args: argparse.Namespace) -> ScoreConfig:
    """The validated :class:`ScoreConfig`: defaults < ``--config`` (its ``score:`` section) <
    ``--set`` < explicit flags."""
    flags = [f"{k}={v}" for k, v in given_flags(ScoreConfig, args).items()]
    return load_config(ScoreConfig, args.config, [*(args.set or []), *flags], section="score")


def restrict(dialogues: list[Dialogue], ids_path: str | None) -> list[Dialogue]:
    """The dialogues whose ids ``ids_path`` (a JSON list) names; an unknown id is an error."""
    if not ids_path:
        return dialogues
    try:
        ids = json.loads(Path(ids_path).read_text())
    except (OSError, ValueError) as exc:
        raise DataError(
            f"not a JSON list of dialogue ids ({type(exc).__name__}: {str(exc)[:100]})", file=ids_path
        ) from None
    if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
        raise DataError("expected a JSON list of dialogue ids", file=ids_path)
    known = {d["dialogue_id"] for d in dialogues}
    unknown = sorted(set(ids) - known)
    if unknown:
        raise DataError(f"{len(unknown)} dialogue id(s) not in the corpus, e.g. {unknown[:3]}", file=ids_path)
    keep = set(ids)
    return [d for d in dialogues if d["dialogue_id"] in keep]


def refuse_inputs(outputs: list[Path], inputs: list[str | None]) -> None:
    """UsageError when an output path is, holds or lies inside an input
    (:func:`trace_crs.atomic.refuse_overlap`), or is an existing directory."""
    refuse_overlap(outputs, inputs)
    for out in outputs:
        if Path(out).is_dir():
            raise UsageError(f"output {out} is a directory; --out names a JSON file")


def summary(agg: ScoreFile) -> str:
    """The one-screen summary printed on stderr: key, label, direction (↑ higher is better) and value."""
    from trace_crs.metrics.registry import higher_is_better, label

    m = agg["metrics"]
    lines = [
        f"scored {agg['n_turns']} turns of {agg['n_dialogues']} dialogues "
        f"({agg['n_missing']} missing, {agg.get('n_off_target_citations', 0)} off-target citations, "
        f"{agg.get('n_ignored_predictions', 0)} predictions outside the scored dialogues)"
    ]
    for k in (k for k in SUMMARY if k in m):  # label and direction from the metric registry
        head = f"  {k:20s} {label(k):10s} {'↑' if higher_is_better(k) else '↓'}"
        lines.append(f"{head} {m[k]:.4f}" if m[k] is not None else f"{head} n/a")
    lines.append(f"  {agg['signature']}")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    """Load inputs, score, write the outputs, print the output path."""
    from trace_crs.dialogues.schema import load_dialogues
    from trace_crs.kb import load_kb
    from trace_crs.metrics.backed import score_with_backends
    from trace_crs.metrics.predictions import read_predictions

    if not Path(args.kb).is_dir():
        raise FileNotFoundError(f"KB directory {args.kb} not found")
    if not Path(args.dialogues).exists():
        raise FileNotFoundError(f"dialogues file {args.dialogues} not found")
    cfg = score_config(args)
    pred = Path(args.predictions)
    out = Path(args.out) if args.out else pred.with_name(pred.stem + ".score.json")
    outputs = list(score_outputs(out).values())  # JSON, per_turn, per_dialogue (trace_crs.results_layout)
    outputs += [Path(args.per_turn)] if args.per_turn else []
    refuse_inputs(outputs, [args.kb, args.dialogues, args.predictions, args.dialogue_ids])
    kb = load_kb(args.kb)
    corpus = load_dialogues(args.dialogues)
    dialogues = restrict(corpus, args.dialogue_ids)
    scored = {d["dialogue_id"] for d in dialogues}
    predictions = read_predictions(
        args.predictions, dialogues, kb, pool=cfg.pool, outside={d["dialogue_id"] for d in corpus} - scored
    )
    scores = score_with_backends(kb, corpus, dialogues, predictions, cfg, args.lm_model)
    from trace_crs.cli.tables import safe_cells

    text = json.dumps(scores.aggregate, indent=2, sort_keys=True, allow_nan=False) + "\n"
    writers: dict[str | Path, Callable[[Path], object]] = {
        outputs[1]: lambda t: scores.per_turn.to_parquet(t, index=False),
        outputs[2]: lambda t: scores.per_dialogue.to_parquet(t, index=False),
    }
    if args.per_turn:
        writers[Path(args.per_turn)] = lambda t: safe_cells(scores.per_turn).to_csv(t, index=False, float_format="%.6g")
    # one commit, the JSON last: it marks the score as complete (trace_crs.atomic.commit_files)
    commit_files({**writers, out: lambda t: t.write_text(text)}, marker=out)
    if scores.aggregate["n_missing"]:
        print(
            f"trace-crs score: warning: {scores.aggregate['n_missing']} reference turns have no prediction; "
            "they score 0 on every metric (--strict makes this an error)",
            file=sys.stderr,
        )
    if bare := scores.aggregate.get("quotes", {}).get("turns_marks_but_no_quote", 0):
        print(
            f"trace-crs score: warning: {bare} turns carry [Rn] labels or quoted spans but no quote in the form "
            '"…" [Rn] (one label right after the closing mark); their GS is the vacuous 1.0 and their CD 0 '
            "(score file: quotes)",
            file=sys.stderr,
        )
    if not getattr(args, "quiet", False) and not getattr(args, "global_quiet", False):
        print(summary(scores.aggregate), file=sys.stderr)
    print(
        json.dumps({"out": str(out), **scores.aggregate}, sort_keys=True)
        if getattr(args, "global_json", False)
        else out
    )
    return 0
