"""`trace-crs stats` end to end on tiny parquet files."""
from __future__ import annotations

import pandas as pd
import pytest

from trace_crs.cli import main


@pytest.fixture
def scores(tmp_path):
    d = tmp_path / "scores"
    d.mkdir()
    for base, vals in (("a", [1.0, 1.0, 0.0]), ("b", [0.0, 0.0, 0.0])):
        pd.DataFrame({"dialogue_id": ["d1", "d1", "d2"], "turn_id": [2, 4, 2], "m": vals, "cgs": vals}).to_parquet(
            d / f"{base}.per_turn.parquet")
        pd.DataFrame({"dialogue_id": ["d1", "d2"], "tsr": [1.0, 0.0]}).to_parquet(d / f"{base}.per_dialogue.parquet")
    records = pd.DataFrame({"dialogue_id": ["d1", "d2"] * 2, "baseline": ["a", "a", "b", "b"], "model": None,
                            "prompt_tokens": [10, 10, 0, 0], "completion_tokens": 0, "latency_s": [2.0, 2.0, 0.1, 0.1]})
    records.to_parquet(tmp_path / "records.parquet")
    return tmp_path


def test_bootstrap_command(scores):
    out = scores / "boot.csv"
    assert main(["stats", "bootstrap", "--scores", str(scores / "scores"), "--pair", "a:b:m",
                 "--n-boot", "20", "--out", str(out)]) == 0
    assert pd.read_csv(out)["delta"].iloc[0] == pytest.approx(2 / 3)
    as_json = scores / "boot.json"  # the format follows the file name
    assert main(["stats", "bootstrap", "--scores", str(scores / "scores"), "--pair", "a:b:m",
                 "--n-boot", "20", "--out", str(as_json)]) == 0
    assert pd.read_json(as_json)["delta"].iloc[0] == pytest.approx(2 / 3)


def test_oracle_command_seconds_budget(scores):
    out = scores / "oracle.csv"
    assert main(["stats", "oracle", "--scores", str(scores / "scores"), "--records", str(scores / "records.parquet"),
                 "--quality", "m", "--cost", "latency_s", "--budgets", "3", "--out", str(out)]) == 0
    curve = pd.read_csv(out)
    # b is free (0.2 s) with quality 0; a on d1 (q 1) costs +1.9 s; a on d2 adds nothing
    assert curve["budget"].tolist() == pytest.approx([0.2, 1.15, 2.1])
    assert curve["mean_quality"].tolist() == pytest.approx([0.0, 0.0, 0.5])


def test_missing_scores_exit_2(tmp_path, capsys):
    assert main(["stats", "bootstrap", "--scores", str(tmp_path), "--out", str(tmp_path.parent / "x.csv")]) == 2
    assert "no *.per_turn.parquet" in capsys.readouterr().err
