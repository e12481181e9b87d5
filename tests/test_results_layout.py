"""The one spelling of every path under results/<profile>/ (ARCHITECTURE §4, §5)."""
from pathlib import Path

import pytest

from trace_crs import results_layout as layout
from trace_crs.report import results


def test_paths_hand_spelled(tmp_path):
    r = tmp_path / "results" / "smoke"
    assert layout.run_file(r, "closed", layout.RECORDS) == r / "runs" / "closed" / "records.parquet"
    assert layout.run_file(r, "closed", layout.DIALOGUE_IDS) == r / "runs" / "closed" / "dialogue_ids.json"
    assert layout.predictions(r, "open", "tfidf") == r / "runs" / "open" / "predictions" / "tfidf.jsonl"
    assert layout.score_file(r, "closed", "tfidf") == r / "scores" / "closed" / "tfidf.json"
    assert layout.score_file(r, "closed", "tfidf", "per_turn") == r / "scores" / "closed" / "tfidf.per_turn.parquet"
    assert layout.table(r, "t05_headline") == r / "tables" / "t05_headline.csv"
    assert layout.timings_dir(r) == r / "timings"


def test_score_outputs_sit_beside_the_json():
    out = layout.score_outputs("x/base.score.json")
    assert out == {"json": Path("x/base.score.json"), "per_turn": Path("x/base.score.per_turn.parquet"),
                   "per_dialogue": Path("x/base.score.per_dialogue.parquet")}
    with pytest.raises(ValueError, match="per_turn"):
        layout.score_file("r", "closed", "tfidf", "csv")


def test_require_names_the_path(tmp_path):
    assert layout.require(tmp_path, "here") == tmp_path
    with pytest.raises(layout.ResultsMissing, match=f"records of run 'closed' not found: {tmp_path}"):
        results.records_file(tmp_path, "closed")
    assert results.ResultsMissing is layout.ResultsMissing and issubclass(layout.ResultsMissing, FileNotFoundError)


def test_write_table_is_whole_and_deterministic(tmp_path):
    import pandas as pd

    frame = pd.DataFrame({"a": [1.0, 0.1234567], "b": ["x", "y"]})
    path = results.write_table(frame, tmp_path, "t")
    assert path == layout.table(tmp_path, "t") and path.read_text() == "a,b\n1,x\n0.123457,y\n"
    assert [p.name for p in path.parent.iterdir()] == ["t.csv"]  # no temporary left behind
