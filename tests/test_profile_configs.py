"""Invariants the shipped run configs state in their comments (configs/<profile>/*.yaml)."""
from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from trace_crs.lm.weights import WEIGHTS
from trace_crs.stats.bootstrap import MIN_CLUSTERS

CONFIGS = Path(__file__).resolve().parents[1] / "configs"


def _load(profile: str, run: str) -> dict:
    return yaml.safe_load((CONFIGS / profile / f"{run}.yaml").read_text())


@pytest.mark.parametrize("profile", sorted(p.name for p in CONFIGS.iterdir() if (p / "closed_llm.yaml").exists()))
def test_closed_judges_the_turns_the_llm_rows_answered(profile):
    closed, llm = _load(profile, "closed"), _load(profile, "closed_llm")
    if llm["score"].get("judge", "none") == "none":
        return
    # judged_turns draws judge_n dialogues with the seed of evaluate --subset: equal sizes, same draw
    # (a run over the whole corpus holds every judged dialogue)
    assert closed["score"]["judge_n"] == llm["score"]["judge_n"] == llm["evaluate"].get("subset", llm["score"]["judge_n"])
    assert closed["score"]["judge"] == llm["score"]["judge"]


@pytest.mark.parametrize("path", sorted(CONFIGS.glob("*/*.yaml")), ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_weights_key_matches_the_runs_lm_weights(path):
    cfg = yaml.safe_load(path.read_text())
    sets = [s.split("=", 1)[1] for s in cfg.get("evaluate", {}).get("set", []) if s.startswith("lm.weights=")]
    if "weights" in cfg:                       # the file the run depends on in mk/paper.mk
        assert cfg["weights"] in WEIGHTS and sets == [cfg["weights"]]


def test_default_llm_rows_reach_the_minimum_for_an_interval():
    assert _load("default", "closed_llm")["evaluate"]["subset"] >= MIN_CLUSTERS
