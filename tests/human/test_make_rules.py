"""mk/paper.mk's human rules: the analysis follows HUMAN_LABELS (content, not mtime) and is removed
without it, so the Human evaluation page is never built from a stale one."""
from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(shutil.which("make") is None or not (ROOT / ".venv" / "bin" / "trace-crs").exists(),
                                reason="needs make and the project venv")


def make(res: Path, *assignments: str) -> str:
    # -o: never (re)install the venv from here, whatever the stamps say
    done = subprocess.run(["make", "--no-print-directory", "-o", ".venv/.installed", "human", "PROFILE=smoke",
                           f"RES={res}", *assignments], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_analysis_follows_the_labels_and_is_removed_without_them(tmp_path):
    res = tmp_path / "res"
    out = make(res, "HUMAN_NBOOT=20")
    summary = res / "human" / "summary.json"
    assert "human agree" in out and json.loads(summary.read_text())["n_boot"] == 20
    assert json.loads(summary.read_text())["source"] == "simulated"          # the smoke fixture says so
    stamp = (res / "params" / "HUMAN").read_text()
    assert "source=simulated n_boot=20" in stamp and "tests/fixtures/human/labels.jsonl" in stamp
    assert "human agree" not in make(res, "HUMAN_NBOOT=20")                 # nothing changed: no re-run
    assert "human agree" in make(res, "HUMAN_NBOOT=21")                     # a setting changed: re-run
    assert json.loads(summary.read_text())["n_boot"] == 21
    copy = tmp_path / "labels.jsonl"                                         # other labels, older than the output
    copy.write_text((ROOT / "tests/fixtures/human/labels.jsonl").read_text())
    import os
    os.utime(copy, (0, 0))
    assert "human agree" in make(res, "HUMAN_NBOOT=21", f"HUMAN_LABELS={copy}")
    assert json.loads(summary.read_text())["labels"] == str(copy)
    assert json.loads(summary.read_text())["source"] == "study"
    assert "removing the earlier analysis" in make(res, "HUMAN_LABELS=")
    assert not (res / "human").exists()
