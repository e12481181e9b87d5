"""The abstention chapter's LLM rows (``abstention/llm_abstention.csv``), and "not run" without them."""
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
