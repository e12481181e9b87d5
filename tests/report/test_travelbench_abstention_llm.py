"""The abstention chapter's LLM rows (``abstention/llm_abstention.csv``), and a plain sentence without them."""
from trace_crs.report import travelbench_abstention as tba


def test_llm_rows_read_the_llm_file_and_say_not_run(tmp_path):
    assert tba.llm_rows(tmp_path).empty
    (tmp_path / "abstention").mkdir()
    (tmp_path / "abstention" / "llm_abstention.csv").write_text(
        "baseline,precision,recall,f1,false_abstention_rate,tp,fp,fn,n_unsolvable,n_solvable,n_fallbacks,recall_live_data\n"
        "llm_zero_shot,0.5,0.5,0.5,0.5,1,1,1,2,2,0,1.0\n")
    df = tba.llm_rows(tmp_path)
    assert df["system"].tolist() == ["LLM Zero-Shot"] and df["recall_live_data"].tolist() == [1.0]
    assert list(df.columns[:len(tba.LLM_COLUMNS)]) == tba.LLM_COLUMNS


def test_llm_rows_carry_wilson_intervals_worked_by_hand(tmp_path):
    """recall 1 of 2 and false abstentions 0 of 3: Wilson 95% bounds from the closed formula
    (z = 1.96): centre (p + z²/2n) / (1 + z²/n), half-width z·sqrt(p(1-p)/n + z²/4n²) / (1 + z²/n)."""
    import math
    (tmp_path / "abstention").mkdir()
    (tmp_path / "abstention" / "llm_abstention.csv").write_text(
        "baseline,precision,recall,f1,false_abstention_rate,tp,fp,fn,n_unsolvable,n_solvable,n_fallbacks\n"
        "llm_zero_shot,1.0,0.5,0.667,0.0,1,0,1,2,3,0\n")
    row = tba.llm_rows(tmp_path).iloc[0]
    z = 1.959963984540054
    def wilson(k, n):
        p = k / n
        centre, half = (p + z * z / (2 * n)), z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
        return (centre - half) / (1 + z * z / n), (centre + half) / (1 + z * z / n)
    assert math.isclose(row["recall_ci_low"], wilson(1, 2)[0], rel_tol=1e-9)
    assert math.isclose(row["recall_ci_high"], wilson(1, 2)[1], rel_tol=1e-9)
    assert row["far_ci_low"] < 1e-12 and math.isclose(row["far_ci_high"], wilson(0, 3)[1], rel_tol=1e-9)
