"""`make paper DATASET=official` (mk/official.mk) on the fixtures, as Make plans it (`make -n -B`:
every command, nothing run): its own book directory, results and corpus, and not one path of the
smoke or default book, so building both books one after the other keeps the smoke book intact."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from trace_crs.release import pages

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(shutil.which("make") is None or not (ROOT / ".venv" / "bin" / "python").exists(),
                                reason="needs make and the project's .venv")


def plan(*args: str) -> str:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    out = subprocess.run(["make", "-n", "-B", *args, "paper"], cwd=ROOT, env=env, capture_output=True, text=True,
                         check=True)
    return out.stdout


@pytest.fixture(scope="module")
def official() -> str:
    return plan("DATASET=official", "RELEASE_DIR=tests/fixtures/release", "YELP_DIR=tests/fixtures/release/yelp")


def test_official_book_has_its_own_directories(official):
    shared = re.findall(r"(?<![\w/-])(?:book/content|book/_build|results/(?:smoke|default)|data/(?:kb|dialogues)/(?:smoke|default))"
                        r"\S*", official)
    assert shared == []
    assert "jupyter-book build -W -q build/official-book" in official
    assert "release import" in official and "--out data/dialogues/official" in official


def test_official_book_runs_only_the_pages_the_release_feeds(official):
    executed = re.findall(r"--output build/official-book/content/\.(\w+)\.src\.ipynb", official)
    assert executed == pages.built(pages.yaml.safe_load((ROOT / "book" / "_toc.yml").read_text()))
    assert all(f"--page {p} " in official for p in executed)  # each page gets its release-field note
    assert "llm" not in " ".join(re.findall(r"trace-crs evaluate --config (\S+)", official))


def test_smoke_book_plan_is_unchanged_by_the_official_profile():
    smoke = plan("PROFILE=smoke")
    assert "build/official-book" not in smoke and "release.pages note" not in smoke
    assert "jupyter-book build -W -q book" in smoke
