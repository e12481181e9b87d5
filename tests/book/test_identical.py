"""book/tools/identical.py: byte comparison of two results directories' table CSVs."""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "book" / "tools"))
import identical  # noqa: E402


def _write(root: Path, name: str, text: str) -> None:
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_identical_directories_exit_zero(tmp_path, capsys):
    for side in ("a", "b"):
        _write(tmp_path / side, "tables/x.csv", "k,v\n1,2\n")
    assert identical.main([str(tmp_path / "a"), str(tmp_path / "b")]) == 0
    assert "identical: 1 CSV file(s)" in capsys.readouterr().out


def test_added_removed_and_first_differing_line(tmp_path):
    _write(tmp_path / "a", "tables/gone.csv", "x\n")
    _write(tmp_path / "b", "tables/new.csv", "x\n")
    _write(tmp_path / "a", "tables/same.csv", "k,v\n1,2\n3,4\n")
    _write(tmp_path / "b", "tables/same.csv", "k,v\n1,2\n3,5\n")
    lines = identical.compare(tmp_path / "a", tmp_path / "b", {})
    assert lines == ["removed   tables/gone.csv", "added     tables/new.csv",
                     "different tables/same.csv: line 3: '3,4' | '3,5'"]
    assert identical.main([str(tmp_path / "a"), str(tmp_path / "b")]) == 1


def test_a_rename_compares_old_with_new(tmp_path):
    _write(tmp_path / "a", "tables/table5_headline.csv", "k\n1\n")
    _write(tmp_path / "b", "tables/t05_headline.csv", "k\n1\n")
    assert identical.compare(tmp_path / "a", tmp_path / "b") == []
    assert identical.compare(tmp_path / "a", tmp_path / "b", {}) == [
        "removed   tables/table5_headline.csv", "added     tables/t05_headline.csv"]


def test_rename_file_and_missing_directory(tmp_path):
    _write(tmp_path / "a", "figures/f.csv", "1\n")
    _write(tmp_path / "b", "figures/g.csv", "1\n")
    (tmp_path / "r.yaml").write_text("figures/f.csv: figures/g.csv\n")
    assert identical.main([str(tmp_path / "a"), str(tmp_path / "b"), "--renames", str(tmp_path / "r.yaml")]) == 0
    assert identical.main([str(tmp_path / "a"), str(tmp_path / "nope")]) == 2


def test_wall_clock_columns_are_reported_as_measured_not_as_differences(tmp_path, capsys):
    """Only wall_s and total_s move: measured, exit 0; a moved result column beside them still differs."""
    head = "baseline,usd,wall_s,latency_p50_s,latency_p90_s,total_s\n"
    _write(tmp_path / "a", "tables/table29_judge_cost.csv", head + "tfidf,0,91.9,0.1,0.2,92.0\n")
    _write(tmp_path / "b", "tables/table29_judge_cost.csv", head + "tfidf,0,11.3,0.1,0.2,11.4\n")
    assert identical.main([str(tmp_path / "a"), str(tmp_path / "b")]) == 0
    assert "measured  tables/table29_judge_cost.csv" in capsys.readouterr().out
    _write(tmp_path / "b", "tables/table29_judge_cost.csv", head + "tfidf,1,11.3,0.1,0.2,11.4\n")
    assert identical.main([str(tmp_path / "a"), str(tmp_path / "b")]) == 1
