"""Shared fixture of the fuzz tests: a small synthetic KB and a generated corpus that validates."""
from __future__ import annotations

import pytest

from trace_crs.cli import main


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    """``(kb_dir, dialogues_path)``: synthetic KB (10 POIs per cell) and 12 simulated dialogues."""
    root = tmp_path_factory.mktemp("corpus")
    assert main(["kb", "build", "--source", "synthetic", "--per-cell", "10", "--seed", "42", "--out", str(root / "kb")]) == 0
    assert main(["dialogues", "generate", "--kb", str(root / "kb"), "--n", "12", "--seed", "42",
                 "--out", str(root / "d" / "dialogues.jsonl")]) == 0
    return root / "kb", root / "d" / "dialogues.jsonl"
