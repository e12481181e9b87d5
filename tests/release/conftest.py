"""The hand-made release fixtures (tests/fixtures/release) and a small synthetic corpus."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "release"


@pytest.fixture
def release(tmp_path) -> Path:
    """A writable copy of the fixture release (crs_dataset.json, poi_knowledge_base.json,
    splits/, yelp/), so a test can corrupt it."""
    dst = tmp_path / "release"
    shutil.copytree(FIXTURES, dst, ignore=shutil.ignore_patterns("*.py", "__pycache__"))
    return dst


def import_args(release: Path, out: Path, yelp: Path | None = None) -> list[str]:
    return ["release", "import", "--dataset", str(release / "crs_dataset.json"), "--pois",
            str(release / "poi_knowledge_base.json"), "--splits", str(release / "splits"),
            "--yelp-dir", str(yelp or release / "yelp"), "--out", str(out)]


@pytest.fixture(scope="module")
def smoke_corpus(tmp_path_factory) -> tuple[Path, Path]:
    """A synthetic KB (10 POIs per city x type) and 40 simulated dialogues, as `make dialogues`
    writes them (the smoke profile's generator, smaller)."""
    from trace_crs.cli import main
    root = tmp_path_factory.mktemp("smoke")
    assert main(["--quiet", "kb", "build", "--source", "synthetic", "--per-cell", "10", "--seed", "42",
                 "--out", str(root / "kb")]) == 0
    assert main(["--quiet", "dialogues", "generate", "--kb", str(root / "kb"), "--n", "40", "--generator",
                 "simulated", "--seed", "42", "--out", str(root / "d" / "dialogues.jsonl")]) == 0
    return root / "kb", root / "d" / "dialogues.jsonl"
