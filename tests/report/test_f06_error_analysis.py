"""Figure 6 error rates on the hand-built run of ``fabricated_run`` (rates worked out by hand),
saved by ``stats.sensitivity`` (as ``trace-crs stats sensitivity errors`` does) and laid out here."""
import importlib.util
from pathlib import Path

import matplotlib
import pandas as pd
import pytest

from trace_crs.report import f06_error_analysis, sensitivity
from trace_crs.stats import sensitivity as stage

_SPEC = importlib.util.spec_from_file_location("fabricated_run",
                                               Path(__file__).parents[1] / "stats" / "fabricated_run.py")
fabricated_run = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(fabricated_run)


def write_run(res, **kw):
    """The hand-built run and its saved error rates (``make paper``'s sensitivity stage)."""
    fabricated_run.write_run(res)
    path = res / sensitivity.SAVED_DIR / f"{f06_error_analysis.NAME}.parquet"
    stage.write(stage.analyse("errors", res, ["closed"], **kw), path)

matplotlib.use("Agg")


def _rate(df, baseline, kind):
    hit = df[(df["baseline"] == baseline) & (df["column"] == kind)]
    assert len(hit) == 1
    return hit.iloc[0]


def test_error_rates_by_hand(tmp_path):
    res = tmp_path / "results"
    write_run(res)
    df = f06_error_analysis.load(res, runs=["closed"])
    # tfidf: grounding D1t4 fails (1 of 3); recommendation D2t2 top P3 ∉ {P1, P2} (1 of 3);
    # relevance D1t2 does not say "quiet" (D1t4 does, D2 states nothing): 1 of 3.
    for kind in f06_error_analysis.KINDS:
        assert _rate(df, "tfidf", kind)["ours"] == pytest.approx(1 / 3)
    # popularity: no quotes; top-1 wrong at D1t2 and empty at missing D1t4; neither says "quiet".
    assert _rate(df, "popularity", "grounding")["ours"] == 0.0
    assert _rate(df, "popularity", "recommendation")["ours"] == pytest.approx(2 / 3)
    assert _rate(df, "popularity", "relevance")["ours"] == pytest.approx(2 / 3)
    row = _rate(df, "popularity", "recommendation")
    assert row["paper"] == 0.854 and row["diff"] == pytest.approx(2 / 3 - 0.854)
    assert pd.isna(_rate(df, "tfidf", "grounding")["paper"])  # the prose prints no TF-IDF rate
    assert (row["n_turns"], row["n_dialogues"], row["run"]) == (3, 2, "closed")
    assert len(df) == 6 and not (res / "tables").exists()  # load only reads
    facts = f06_error_analysis.facts(df)
    assert facts["worst_recommendation_label"] == "Popularity"
    assert facts["mean_grounding_non_llm"] == pytest.approx(1 / 6)
    assert facts["n_turns"] == 6


def test_subset_and_plot(tmp_path):
    res = tmp_path / "results"
    write_run(res, n_dialogues=1, seed=42)
    df = f06_error_analysis.load(res, runs=["closed"])
    assert set(df["n_dialogues"]) == {1}
    f06_error_analysis.plot(df, figures_dir=tmp_path / "fig")
    assert sorted(p.name for p in (tmp_path / "fig").iterdir()) == [
        "f06_error_analysis.png", "f06_error_analysis.svg"]


def test_missing_saved_rates_name_the_path(tmp_path):
    with pytest.raises(FileNotFoundError, match="f06_error_analysis.parquet"):
        f06_error_analysis.load(tmp_path, runs=["closed"])
