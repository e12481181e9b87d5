import json
import math

from trace_crs.judge.records import read_judged, read_ratings


def test_read_judged_names_overall_core_avg(tmp_path):
    """A judged line's ``core_avg`` is the column ``core_avg`` (not ``overall``); the rest as read_ratings."""
    p = tmp_path / "core_a.jsonl"
    lines = [
        {"dialogue_id": "tfidf/d1", "system": "tfidf", "factors": {"coherence": 3}, "core_avg": 2.5},
        {"dialogue_id": "tfidf/d2", "system": "tfidf", "factors": {"coherence": None}, "core_avg": None},
    ]
    p.write_text("".join(json.dumps(x) + "\n" for x in lines))
    df = read_judged(p)
    assert "overall" not in df.columns
    assert df["core_avg"].iloc[0] == 2.5 and math.isnan(df["core_avg"].iloc[1])
    assert df.drop(columns="core_avg").equals(read_ratings(p).drop(columns="overall"))
