"""The judge-validity page's library (trace_crs.report.judge_validity): every glue key the page
uses exists, with and without a run; the verdict says plainly when the bar is missed."""
import json
import re
import sys
from pathlib import Path

import pytest

from trace_crs.report import judge_validity

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "judge"))
from test_validity_cli import devset  # noqa: E402,F401  (the fixture)

PAGE = Path(__file__).resolve().parents[2] / "notebooks" / "judge_validity.py"


def test_every_glue_key_exists_without_a_run(tmp_path):
    keys = set(re.findall(r"`jv_(\w+?)(?:_md)?`", PAGE.read_text()))
    facts = judge_validity.facts(None)
    assert keys <= set(facts), keys - set(facts)
    assert "not run" in facts["verdict"]
    assert judge_validity.load(tmp_path) == (None, None)
    assert "not run" in judge_validity.main_table(None).iloc[0, 0]


def test_report_of_a_run_and_the_plain_verdict(devset, tmp_path):
    from trace_crs.cli import main

    tmp, out, overall = devset
    assert main(["--quiet", "judge", "validity", "--candidates", str(tmp / "cands.yaml"), "--arena",
                 str(tmp / "arena.json"), "--out", str(out), "--judge", "none"]) == 0
    res = tmp_path / "res"
    (res / "judge_validity").mkdir(parents=True)
    for name in ("validity.json", "scores.parquet"):
        (res / "judge_validity" / name).write_bytes((out / name).read_bytes())
    v, scores = judge_validity.load(res)
    facts = judge_validity.facts(v)
    assert facts["chosen"] == "wrong" and facts["rho_all"] == pytest.approx(-1.0)   # the reversed judge
    assert facts["passes"] == "no" and "Below the bar" in facts["verdict"]
    table = judge_validity.main_table(v)
    assert list(table["score"])[:2] == ["wrong", "right"] and table.iloc[0]["kind"] == "chosen judge"
    assert table.iloc[0]["n (selection / reporting / all)"].endswith(f"/ {len(overall)}")
    # a monotone function of the human rating keeps all of it given length: partial rho = (1 - r^2) / (1 - r^2)
    beyond = judge_validity.length_table(v).set_index("score")
    assert beyond.loc["right", "partial ρ given length, all"].startswith("1.000")
    assert beyond.loc["wrong", "partial ρ given length, all"].startswith("-1.000")
    assert "length floor" not in beyond.index and "once length is known, its partial ρ" in facts["verdict"]
    assert "not run" in judge_validity.length_table(None).iloc[0, 0]
    fails = judge_validity.failures(v).set_index("candidate")
    assert fails.loc["never", "judge"] == "not judged yet"
    assert "validity" in judge_validity.judge_note(res) and "per-factor" in judge_validity.judge_note(res, False)
    assert "](judge_validity.html)" in judge_validity.judge_note(res)                      # the built page
    assert json.loads((res / "judge_validity" / "validity.json").read_text())["n_boot"] == 50
