"""``trace-crs converse``: run baselines live against the simulated user, resumably
(TravelBench's simulated-user evaluation, seed 003 §3).

Layout of ``out/``: ``config.yaml`` (resolved; a different config in the same directory is
refused), per baseline ``transcripts/<b>.jsonl`` (live dialogues, dialogue schema),
``predictions/<b>.jsonl`` (score format, one row per live recommend turn),
``judge/<b>.jsonl`` (the same conversations as CoRE judge transcripts) and
``outcomes/<b>.parquet`` (one row per conversation, :func:`trace_crs.live.loop.outcome`;
written last, so its presence marks a finished baseline and a re-run skips it), then
``live_scores.json`` / ``live_scores.parquet`` (:mod:`trace_crs.live.scores`) over every
baseline.  Every file is written atomically; the same inputs give byte-identical outputs.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from trace_crs.baselines import registry
from trace_crs.dialogues.constraints import constraints_of
from trace_crs.errors import DataError, UsageError
from trace_crs.judge.adapters import from_live
from trace_crs.judge.transcript import transcript_record
from trace_crs.kb import KB, load_kb
from trace_crs.kb.store import dump_jsonl, iter_jsonl
from trace_crs.live.ask import Asking
from trace_crs.live.loop import converse_many
from trace_crs.live.scores import write_frame, write_scores
from trace_crs.live.simulator import SimConfig, state
from trace_crs.runner.execute import build_baselines, show_corpus
from trace_crs.runner.llm_pool import auto_concurrency
from trace_crs.runner.run import _claim
from trace_crs.runner.selection import Rules, Selection, uses_llm
from trace_crs.runner.tasks import load_evaluated

Progress = Callable[[str, int, int], None]
SIMULATORS: tuple[str, ...] = ("template", "llm")
ROUND_SIZE = 100  # conversations run in lockstep (one warm batch per round): memory stays flat


@dataclass(frozen=True)
class LiveConfig(Selection):
    """What a live run evaluates (flags of ``trace-crs converse``;
    :class:`~trace_crs.runner.selection.Selection` plus the simulated user)."""

    baselines: str = "non-llm"
    max_turns: int = SimConfig.max_turns
    opening_prefs: int = SimConfig.opening_prefs
    simulator: str = "template"  # "template" | "llm" (live.llm_user: the template user, rewritten by the LM)
    ask: int = 0  # questions each system may ask first (live.ask.Asking); 0: recommend only

    def __post_init__(self) -> None:
        self.check("converse config")

    def rules(self) -> Rules:
        return {
            **super().rules(),
            "max_turns": (self.max_turns >= 1, ">= 1"),
            "opening_prefs": (self.opening_prefs >= 0, ">= 0"),
            "ask": (self.ask >= 0, ">= 0"),
            "simulator": (self.simulator in SIMULATORS, f"one of {', '.join(SIMULATORS)}"),
        }

    @property
    def sim(self) -> SimConfig:
        return SimConfig(max_turns=self.max_turns, opening_prefs=self.opening_prefs)


def resolved_config(cfg: LiveConfig) -> dict[str, Any]:
    """The config as written to ``config.yaml``: names resolved, inputs identified by SHA256; the
    LM block is resolved for LLM baselines and for the LLM user."""
    return cfg.resolved(lambda names: cfg.simulator == "llm" or uses_llm(names), "converse config lm")


def check_out(out: Path, inputs: list[str]) -> None:
    """Refuse an ``out`` that is, holds or lies inside an input, or a non-run directory."""
    for given in inputs:
        i = Path(given).resolve()
        o = out.resolve()
        if o == i or i in o.parents or (i.is_dir() and o in i.parents):
            raise UsageError(f"--out {out} would overwrite the input {i}; choose another directory")
    if out.exists() and not out.is_dir():
        raise UsageError(f"--out {out} is an existing file; converse writes a directory")
    if out.is_dir() and any(out.iterdir()) and not (out / "config.yaml").exists():
        raise UsageError(f"--out {out} is a non-empty directory that is not a converse run (no config.yaml)")


def paths(out: Path, name: str) -> dict[str, Path]:
    """The files of one baseline (``judge``: its conversations in the CoRE judge's transcript
    format, :func:`trace_crs.judge.adapters.from_live`)."""
    return {
        "transcripts": out / "transcripts" / f"{name}.jsonl",
        "predictions": out / "predictions" / f"{name}.jsonl",
        "judge": out / "judge" / f"{name}.jsonl",
        "outcomes": out / "outcomes" / f"{name}.parquet",
    }


def run_baseline(
    baseline: Any,
    name: str,
    kb: KB,
    dialogues: list[dict[str, Any]],
    cfg: LiveConfig,
    out: Path,
    progress: Progress | None = None,
    user_lm: Any = None,
    concurrency: int = 1,
) -> None:
    """Converse with every dialogue and write the baseline's three files (outcomes last);
    ``concurrency``: :func:`~trace_crs.live.loop.converse_many`'s."""
    transcripts, rows, preds = [], [], []
    if cfg.ask:
        baseline = Asking(baseline, cfg.ask)
    for start in range(0, len(dialogues), ROUND_SIZE):
        for transcript, row, pred in converse_many(
            baseline, name, dialogues[start : start + ROUND_SIZE], kb, cfg.seed, cfg.sim, cfg.pool, user_lm, concurrency
        ):
            transcripts.append(transcript)
            rows.append(row)
            preds += pred
        if progress is not None:
            progress(name, len(rows), len(dialogues))
    p = paths(out, name)
    for key in p:
        p[key].parent.mkdir(parents=True, exist_ok=True)
    dump_jsonl(transcripts, p["transcripts"])
    dump_jsonl(preds, p["predictions"])
    shown = {(r["dialogue_id"], r["turn_id"]): r for r in preds}
    dump_jsonl([transcript_record(from_live(t, kb, name, shown)) for t in transcripts], p["judge"])
    write_frame(pd.DataFrame(rows), p["outcomes"])


def load_baseline(out: Path, name: str) -> tuple[list[dict], list[dict], pd.DataFrame]:
    """A finished baseline's transcripts, prediction rows and outcome frame."""
    p = paths(out, name)
    return (
        [r for _, r in iter_jsonl(p["transcripts"])],
        [r for _, r in iter_jsonl(p["predictions"])],
        pd.read_parquet(p["outcomes"]),
    )


def check_profiles(dialogues: list[dict[str, Any]], path: str) -> None:
    """Every hidden preference must be one the simulator can state (its bank has a sentence
    for it), else :class:`DataError` naming the dialogue (exit 3) before anything runs."""
    rng = np.random.default_rng(0)
    for d in dialogues:
        for constraint in constraints_of(d["scenario"]["hidden_preferences"]):
            try:
                state(constraint, rng)
            except (ValueError, KeyError, TypeError) as exc:
                raise DataError(
                    f"dialogue {d['dialogue_id']}: the simulated user cannot state {constraint[0]}="
                    f"{constraint[1]!r} ({exc})",
                    file=path,
                    field="scenario.hidden_preferences",
                ) from None


def run_live(cfg: LiveConfig, out: str | Path, progress: Progress | None = None) -> dict[str, Any]:
    """Run (or resume) a live evaluation into ``out``; returns the per-baseline summary."""
    out = Path(out)
    check_out(out, [cfg.kb, cfg.dialogues])
    resolved = resolved_config(cfg)
    names = resolved["baselines"]
    kb = load_kb(cfg.kb)
    dialogues = load_evaluated(cfg.dialogues, cfg.subset, cfg.seed)
    check_profiles(dialogues, cfg.dialogues)
    _claim(out, resolved)
    todo = [n for n in names if not paths(out, n)["outcomes"].exists()]
    with ExitStack() as stack:
        user_lm = None
        if todo and cfg.simulator == "llm":
            from trace_crs.lm.backend import open_lm
            from trace_crs.lm.config import resolve_lm_config

            user_lm = stack.enter_context(open_lm(resolve_lm_config(resolved["lm"], source="converse config lm")))
        for group in ("non-LLM", "LLM"):
            members = [n for n in todo if registry.uses_llm(n) == (group == "LLM")]
            if not members:
                continue
            kwargs = (
                {"lm_config": resolved["lm"], "seed": cfg.seed, "prefilter": cfg.prefilter} if group == "LLM" else {}
            )
            baselines = build_baselines(members, kb, **kwargs)
            if group == "non-LLM":  # Persona-Grounded's prior, learned from the reference conversations
                show_corpus(baselines, dialogues, kb, cfg.pool, cfg.seed)
            # an LLM baseline's turns go one per local server at a time (runner.llm_pool's concurrency)
            concurrency = auto_concurrency(None, resolved["lm"]) if group == "LLM" else 1
            try:
                for name in members:
                    run_baseline(baselines[name], name, kb, dialogues, cfg, out, progress, user_lm, concurrency)
            finally:
                for baseline in baselines.values():
                    getattr(baseline, "close", lambda: None)()
    return write_scores(kb, {n: load_baseline(out, n) for n in names}, out, resolved)
