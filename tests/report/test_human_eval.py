"""The Human evaluation page's module: paper-only without labels, twins from `human agree` output,
and fixture labels always called fixture labels."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from trace_crs.cli import main
from trace_crs.report import human_eval

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "human"


@pytest.fixture(scope="module")
def analysed(tmp_path_factory):
    res = tmp_path_factory.mktemp("res")
    assert main(["human", "agree", "--labels", str(FIX / "labels.jsonl"), "--key", str(FIX / "key.jsonl"),
                 "--source", "simulated", "--n-boot", "50", "--quiet", "--out", str(res / "human")]) == 0
    return res


def test_without_labels_only_the_paper(tmp_path):
    frames = human_eval.load(tmp_path)
    assert frames == {} and human_eval.summary(tmp_path) is None
    long = human_eval.table10(frames)
    assert long["ours"].isna().all() and long["paper"].notna().all()
    assert set(long["column"]) == set(human_eval.TABLE10_HEADERS.values())
    assert human_eval.frame(frames, "annotators").to_dict("records") == [
        {"Ours": "not run: no human labels for this profile"}]
    assert human_eval.frame({"alphas": pd.DataFrame()}, "leave_pair_out")["Ours"][0].startswith("not run: too few")
    assert "No human labels" in human_eval.status(None)
    facts = human_eval.facts(frames)
    assert np.isnan(facts["mean_alpha"]) and facts["n_annotators"] == 0
    assert facts["paper_mean_alpha"] == "0.408" and facts["paper_jaccard"] == "0.437"   # printed claims


def test_twins_from_the_analysis(analysed):
    frames = human_eval.load(analysed)
    long = human_eval.table10(frames).set_index(["baseline", "column"])
    ours = frames["table10"].set_index("baseline")
    assert long.loc[("tfidf", "Cite. Prec."), "ours"] == pytest.approx(ours.loc["tfidf", "cite_prec"])
    assert long.loc[("llm_zero_shot", "Info."), "ours"] == pytest.approx(ours.loc["llm_zero_shot", "info_mean"])
    facts = human_eval.facts(frames)
    assert facts["n_annotators"] == 5 and facts["mean_alpha"] == pytest.approx(frames["alphas"]["mean_alpha"][0])
    assert "fixture labels" in human_eval.status(human_eval.summary(analysed))
    assert "not a human study" in human_eval.status(human_eval.summary(analysed))
    assert "Too vague" in set(human_eval.errors(frames)["Category"])
    pairs = human_eval.paired(frames)
    assert "LLM Zero-Shot vs. TF-IDF" in set(pairs["pair"]) and isinstance(pairs, pd.DataFrame)


def test_table_csv_is_table10_reported_vs_ours(analysed, tmp_path):
    """tables/human_eval.csv (written by the page's notebook) holds Table 10: the printed value
    and ours for every baseline and column, the quote counts as whole numbers."""
    from trace_crs.report import results

    long = human_eval.table10(human_eval.load(analysed))
    csv = pd.read_csv(results.write_table(long, tmp_path, human_eval.NAME))
    assert (tmp_path / "tables" / "human_eval.csv").is_file()
    assert len(csv) == len(long) and {"paper", "ours", "diff"} <= set(csv.columns)
    row = csv.set_index(["baseline", "column"]).loc[("tfidf", "Supp.")]
    ours = human_eval.load(analysed)["table10"].set_index("baseline").loc["tfidf", "supported"]
    assert row["ours"] == ours and float(row["ours"]).is_integer()


def test_a_study_is_not_called_a_fixture():
    text = human_eval.status({"source": "study", "n_annotators": 5, "n_items": 90, "labels": "l.jsonl"})
    assert "human study" in text and "fixture" not in text


@pytest.mark.parametrize("source", ["paper", "analysed"])
def test_table10_counts_shown_as_integers(source, analysed, tmp_path):
    from trace_crs.report import present

    frames = human_eval.load(analysed if source == "analysed" else tmp_path)
    shown = present.comparison(human_eval.table10(frames)).data.set_index(("", "Baseline"))
    assert shown.loc["TF-IDF", ("Supp.", "paper")] == "40"           # paper Table 10 prints 40
    assert shown.loc["TF-IDF", ("Cite. Prec.", "paper")] == "0.909"
    for col in ("Supp.", "Part.", "Not S."):
        for side in ("paper", "ours", "Δ"):
            cells = [c for c in shown[(col, side)] if c not in ("not run", "—")]
            assert all(c.lstrip("−-").isdigit() for c in cells), (col, side, cells)
    if source == "analysed":
        ours = frames["table10"].set_index("baseline")
        assert shown.loc["TF-IDF", ("Supp.", "ours")] == str(int(ours.loc["tfidf", "supported"]))


def test_only_the_tables_summary_lists_are_read(analysed, tmp_path):
    import json
    import shutil

    res = tmp_path / "res"
    shutil.copytree(analysed, res)
    info = json.loads((res / "human" / "summary.json").read_text())
    assert len(info["labels_sha256"]) == 64 and info["labels_sha256"][:12] in human_eval.status(info)
    info["tables"] = [t for t in info["tables"] if t != "task2"]     # a newer analysis without Task 2 labels
    (res / "human" / "summary.json").write_text(json.dumps(info))
    assert (res / "human" / "task2.parquet").is_file()                # left over from the earlier one
    frames = human_eval.load(res)
    assert "task2" not in frames and "table10" in frames
    assert human_eval.facts(frames)["n_pairs"] == 0 and np.isnan(human_eval.facts(frames)["mean_jaccard"])


def test_screenshot_is_a_figure_with_caption_and_alt(tmp_path, monkeypatch):
    import IPython.display

    from trace_crs.report import figures

    with pytest.raises(FileNotFoundError, match="make human-screens"):
        human_eval.screenshot("human_task1", tmp_path)
    from PIL import Image

    Image.new("RGB", (20, 10), "white").save(tmp_path / "human_task1.png")
    shown = []
    monkeypatch.setattr(IPython.display, "display", lambda obj, metadata=None: shown.append((obj, metadata)))
    human_eval.screenshot("human_task1", tmp_path)
    (obj, meta), = shown
    info = meta[figures.META_KEY]
    assert obj.data == (tmp_path / "human_task1.png").read_bytes()
    assert info["alt"].startswith("Screenshot of the annotation tool's Task 1") and info["caption"]
    assert info["name"] == "fig-human-task1"


def test_paper_and_ours_share_headers_and_lost_columns_are_dropped(analysed):
    paper13b = human_eval.paper_table("table13b_leave_out")
    assert "Mean α rel. change" not in paper13b and "Mean_alpha_rel_change" not in paper13b   # lost in extraction
    ours = human_eval.frame(human_eval.load(analysed), "leave_one_out")
    assert {"Dropped", "α info.", "Mean α"} <= set(paper13b) & set(ours)
    paper13 = human_eval.paper_table("table13_annotators")
    mine = human_eval.frame(human_eval.load(analysed), "annotators")
    assert {"Annotator", "Flag rate %", "Avg. cats"} <= set(paper13) & set(mine)
    raw = human_eval.load(analysed)["annotators"]
    assert mine["Flag rate %"].tolist() == pytest.approx((raw["flag_rate"] * 100).tolist())   # percent, as printed


def test_error_table_sets_ours_beside_the_printed_shares(analysed, tmp_path):
    empty = human_eval.errors({}).set_index("Category")
    assert empty.loc["Too vague", "Paper, all (%)"] == pytest.approx(66.7)
    assert empty.loc["No errors", "Paper, all (%)"] == pytest.approx(5.6) and np.isnan(empty.loc["Exaggeration", "Paper, all (%)"])
    assert set(empty["Ours"]) == {"not run"} and len(empty) == 8
    frames = human_eval.load(analysed)
    ours = human_eval.errors(frames).set_index("Category")
    raw = frames["errors"].set_index(["scope", "category"])["share"]
    assert ours.loc["Too vague", "All (%)"] == pytest.approx(100 * raw[("all", "too_vague")])
    assert ours.loc["Too vague", "TF-IDF (%)"] == pytest.approx(100 * raw[("tfidf", "too_vague")])
    assert list(ours.index)[-1] == "No errors"


def test_paper_leave_out_split_into_tables_12_and_13():
    from trace_crs.report import human_eval

    single, pair = human_eval.paper_leave_out("single"), human_eval.paper_leave_out("pair")
    assert len(single) == 5 and len(pair) == 5
    assert single["Dropped"].tolist()[0] == "A1" and "+" in pair["Dropped"].tolist()[0]


def test_table14_paper_column_in_words():
    from trace_crs.report import human_eval

    shown = human_eval.correlations({})
    assert human_eval.PAPER_T14_COLUMN in shown.columns and len(shown) == len(human_eval.PAPER_T14)
    frames = {"correlations": pd.DataFrame({"metric": ["gs", "cd", "cgs"], "human": ["cite_prec", "info", "nat"],
                                            "method": ["spearman"] * 3, "r": [0.3, 0.2, 0.1],
                                            "ci_low": [0.1, 0.1, -0.1], "ci_high": [0.5] * 3, "n": [90] * 3})}
    out = human_eval.correlations(frames).set_index(["metric", "human"])
    assert out.loc[("GS", "citation precision"), "sign agrees"] == "yes"
    assert out.loc[("CD", "informativeness"), "sign agrees"] == "no"
    assert out.loc[("CGS", "naturalness"), human_eval.PAPER_T14_COLUMN] == human_eval.LOST
    frames["correlations"].loc[0, "ci_low"] = -0.2  # the interval spans 0: no verdict
    again = human_eval.correlations(frames).set_index(["metric", "human"])
    assert again.loc[("GS", "citation precision"), "sign agrees"] == human_eval.UNRESOLVED
