"""A small synthetic world for the live-loop tests: the synthetic KB (12 POIs per city × type)
and 24 simulated dialogues (scripted systems are in ``scripted.py``)."""
from __future__ import annotations

import pytest

from trace_crs.dialogues.generate import generate_simulated
from trace_crs.kb.store import KB, dump_jsonl, write_kb
from trace_crs.kb.synthetic import build_synthetic


@pytest.fixture(scope="session")
def world():
    pois, reviews, _ = build_synthetic(per_cell=12, seed=42)
    kb = KB({p.business_id: p for p in pois}, {r.review_id: r for r in reviews})
    return kb, generate_simulated(kb, 24, seed=42), (pois, reviews)


@pytest.fixture(scope="session")
def world_files(world, tmp_path_factory):
    """``(kb_dir, dialogues_path)`` of the world on disk."""
    kb, dialogues, (pois, reviews) = world
    root = tmp_path_factory.mktemp("live_world")
    write_kb(pois, reviews, root / "kb", {"source": "test"})
    dump_jsonl(dialogues, root / "dialogues.jsonl")
    return str(root / "kb"), str(root / "dialogues.jsonl")
