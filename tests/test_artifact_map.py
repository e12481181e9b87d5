"""ARCHITECTURE.md's artifact map equals the one built from the sources (book/tools/artifacts.py)."""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "book" / "tools"))
import artifacts  # noqa: E402


def test_architecture_map_is_current():
    assert artifacts.current() == artifacts.markdown(), "run: python book/tools/artifacts.py --write"


def test_every_chapter_is_mapped_to_a_module():
    rows = artifacts.rows()
    assert len(rows) == len(artifacts.chapters())
    assert all(r[2] != "—" for r in rows)
