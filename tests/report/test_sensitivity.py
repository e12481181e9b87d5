"""Appendix L sensitivity tables (Tables 16–19, 22 and the untabled analyses), one module each, on
hand-built runs and score files (values worked by hand).  The re-scoring analyses are saved by
``stats.sensitivity`` (as ``trace-crs stats sensitivity`` does) and read by the report modules."""
import importlib.util
import math
from pathlib import Path

import matplotlib
import pandas as pd
import pytest

from trace_crs.report import (cgs_formula_variants, grounding_independence, nli_bimodality, nli_threshold, sensitivity,
                              t16_fuzzy_threshold, t17_entailment_vs_fuzzy, t18_spatial_threshold, t19_antigaming,
                              t22_cgs_variants)
from trace_crs.stats import sensitivity as stage

matplotlib.use("Agg")
_SPEC = importlib.util.spec_from_file_location("fabricated_run",
                                               Path(__file__).parents[1] / "stats" / "fabricated_run.py")
fabricated_run = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(fabricated_run)


def _cell(df, baseline, column, field="ours"):
    hit = df[(df["baseline"] == baseline) & (df["column"] == column)]
    assert len(hit) == 1
    return hit.iloc[0][field]


def save(res, analysis, name, runs=("closed",), **kw):
    """What `make paper` does: trace-crs stats sensitivity <analysis> --out sensitivity/<name>.parquet."""
    stage.write(stage.analyse(analysis, res, list(runs), **kw), res / sensitivity.SAVED_DIR / f"{name}.parquet")


@pytest.fixture
def run(tmp_path):
    res = tmp_path / "results"
    fabricated_run.write_run(res)
    return res


def test_fuzzy_threshold_table16(run, tmp_path):
    save(run, "fuzzy", t16_fuzzy_threshold.NAME)
    df = t16_fuzzy_threshold.load(run, runs=["closed"])
    # tfidf GS per turn: "fantastik" quote 1 (ratio 97.8) except exact 0; "pricey sushi" 0; no quote 1.
    for col in ("70%", "80%", "90%"):
        assert _cell(df, "tfidf", col) == pytest.approx(2 / 3)
    assert _cell(df, "tfidf", "Exact") == pytest.approx(1 / 3)
    assert _cell(df, "popularity", "Exact") == 1.0  # no quotes: vacuous GS 1
    assert _cell(df, "tfidf", "70%", "diff") == pytest.approx(2 / 3 - 0.997)
    assert df["rank_rho_vs_default"].to_numpy() == pytest.approx(1.0)
    assert pd.isna(_cell(df, "dense", "80%"))  # printed, not run here
    assert not (run / "tables").exists()  # the notebook writes the CSV, not load
    facts = t16_fuzzy_threshold.facts(df)
    assert facts["max_spread"] == pytest.approx(1 / 3) and facts["n_baselines"] == 2
    t16_fuzzy_threshold.plot(df, figures_dir=tmp_path / "fig")
    assert (tmp_path / "fig" / "t16_fuzzy_threshold.svg").exists()


def test_spatial_threshold_table18(run):
    save(run, "spatial", t18_spatial_threshold.NAME)
    df = t18_spatial_threshold.load(run, runs=["closed"])
    # tfidf: D1 {P1, P2} 1.0007 km apart, D2 {P3, P4} ≈ 10 km; popularity: D2 {P1, P4} 2.0015 km.
    assert [_cell(df, "tfidf", c) for c in t18_spatial_threshold.COLUMNS] == pytest.approx([0, .5, .5, .5, .5])
    assert [_cell(df, "popularity", c) for c in t18_spatial_threshold.COLUMNS] == pytest.approx([0, 0, 0, 1, 1])
    rho = df.drop_duplicates("column").set_index("column")["rank_rho_vs_default"]
    assert math.isnan(rho["1km"]) and rho[["1.5km", "3km"]].tolist() == pytest.approx([1.0, -1.0])
    assert _cell(df, "tfidf", "2km", "diff") == pytest.approx(0.5 - 0.180)


def test_entailment_and_cgs_from_aggregates(tmp_path, scores):
    scores(tmp_path, "closed", "tfidf", {"gs": 0.99, "entailment": 0.19, "cd": 0.4, "pc": 0.5, "cgs": 0.7,
                                         "cgs_ent": 0.1}, n_turns=30)
    df = t17_entailment_vs_fuzzy.load(tmp_path, runs=["closed"])
    assert _cell(df, "tfidf", "Gap") == pytest.approx(0.80)
    assert _cell(df, "tfidf", "Gap", "diff") == pytest.approx(0.80 - 0.805)
    assert _cell(df, "tfidf", "n_turns") == 30
    cgs = t22_cgs_variants.load(tmp_path, runs=["closed"])
    assert _cell(cgs, "tfidf", "CGSent", "diff") == pytest.approx(0.1 - 0.149)
    assert t22_cgs_variants.facts(cgs)["n_columns"] == 6


def test_antigaming_table19(tmp_path, scores):
    turns = [{"dialogue_id": f"d{i}", "turn_id": 2, "cd": cd, "gs": gs}
             for i, (cd, gs) in enumerate([(0.1, 0.5), (0.2, 0.6), (0.3, 0.7)])]
    scores(tmp_path, "closed", "tfidf", {"cd": 0.2}, per_turn=turns)
    df = t19_antigaming.load(tmp_path, runs=["closed"])
    assert _cell(df, "tfidf", "Pearson_r") == pytest.approx(1.0)  # gs = cd + 0.4
    assert _cell(df, "tfidf", "MeanCD", "diff") == pytest.approx(0.2 - 0.395)
    assert _cell(df, "tfidf", "n_turns") == 3 and _cell(df, "tfidf", "MeanCD", "run") == "closed"
    # mean |diff| leaves out n_turns and p_value: (|0.2-0.395| + |0.6-0.997| + |1-0.051|) / 3
    assert t19_antigaming.facts(df)["mean_abs_diff"] == pytest.approx((0.195 + 0.397 + 0.949) / 3)


def test_variants_and_independence(tmp_path, scores):
    tf = [{"dialogue_id": "d1", "turn_id": 2, "gs": 1.0, "cd": 0.5, "pc": 0.2},
          {"dialogue_id": "d2", "turn_id": 2, "gs": 1.0, "cd": 0.04, "pc": 1.0}]
    scores(tmp_path, "closed", "tfidf", {"cgs": 0.25}, per_turn=tf)
    scores(tmp_path, "closed", "popularity", {"cgs": 0.5},
           per_turn=[{"dialogue_id": "d1", "turn_id": 2, "gs": 1.0, "cd": 0.5, "pc": 1.0}])
    v = cgs_formula_variants.load(tmp_path, runs=["closed"]).set_index(["variant", "baseline"])["value"]
    assert v["default", "tfidf"] == pytest.approx((0.5 + 0.0) / 2)    # 1·1·max(.2,.5) and CD gate 0
    assert v["no_pc_floor", "tfidf"] == pytest.approx((0.2 + 0.0) / 2)
    assert v["additive", "tfidf"] == pytest.approx(((1 + 1 + .5) / 3 + (1 + 0 + 1) / 3) / 2)


def test_independence_pools_non_llm_turns_only(tmp_path, scores):
    up = [0.1, 0.2, 0.3]
    for name, gs in (("tfidf", up), ("popularity", [0.4, 0.5, 0.6])):
        scores(tmp_path, "closed", name, {}, per_turn=[
            {"dialogue_id": f"d{i}", "turn_id": 2, "gs": g, "cd": 1 - g, "pc": g} for i, g in enumerate(gs)])
    scores(tmp_path, "closed_llm", "dst", {}, per_turn=[  # would break the perfect ranks if pooled
        {"dialogue_id": "d9", "turn_id": 2, "gs": 0.0, "cd": 0.0, "pc": 1.0}])
    df = grounding_independence.load(tmp_path, runs=["closed", "closed_llm"])
    rho = {(a, b): r for a, b, r in zip(df["metric_a"], df["metric_b"], df["spearman_rho"])}
    assert rho == pytest.approx({("gs", "cd"): -1.0, ("gs", "pc"): 1.0, ("cd", "pc"): -1.0})
    assert set(df["n_turns"]) == {6} and df["baselines"].iloc[0] == "popularity, tfidf"
    assert grounding_independence.facts(df)["max_abs_rho"] == pytest.approx(1.0)


def test_nli_threshold_and_bimodality(run, monkeypatch):
    monkeypatch.setattr(stage, "make_backend", lambda spec: fabricated_run.FakeNLI())
    save(run, "nli", nli_threshold.NAME)
    save(run, "bimodality", nli_bimodality.NAME)
    df = nli_threshold.load(run, run="closed")
    v = df.set_index(["setting", "baseline"])["value"]
    # tfidf claims: pasta (0.9), sushi (0.45, resolved), "P3 or P4" (no citation → 0).
    assert [v[t, "tfidf"] for t in (0.3, 0.4, 0.5, 0.6, 0.7)] == pytest.approx([2 / 3] * 2 + [1 / 3] * 3)
    assert v[0.5, "popularity"] == 0.0 and set(df["backend"]) == {"fake"}
    assert nli_threshold.facts(df)["max_change"] == pytest.approx(1 / 3)
    b = nli_bimodality.load(run, run="closed")
    row = b.set_index("baseline").loc["tfidf"]
    assert (row["n_claims"], row["share_low"], row["share_borderline"], row["share_high"]) == (2, 0, 0.5, 0.5)
    assert list(b["baseline"]) == ["tfidf"]  # popularity cites nothing: no claims to score


def test_saved_analysis_missing_or_made_for_other_runs(run):
    with pytest.raises(FileNotFoundError, match="sensitivity analysis 't18_spatial_threshold'"):
        t18_spatial_threshold.load(run, runs=["closed"])
    save(run, "spatial", t18_spatial_threshold.NAME)
    with pytest.raises(ValueError, match=r"computed on runs \['closed'\], the notebook asks for \['closed', 'other'\]"):
        t18_spatial_threshold.load(run, runs=["closed", "other"])
