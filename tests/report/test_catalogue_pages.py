"""Tables 1, 2, 4, 7, 8, 20 and Figures 1, 3: the pages generated from the registries, the
paper's transcriptions, per-turn scores and make's database."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from trace_crs.baselines.registry import SPECS
from trace_crs.metrics.registry import METRICS
from trace_crs.report import f01_overview, f03_pipeline, t02_gap_map, t07_metrics, t08_baselines, t20_spreads


def test_t07_every_paper_metric_and_every_registry_entry():
    df = t07_metrics.load("unused")
    assert (df["paper metric"] != "not in Table 7").sum() == 25
    assert set(METRICS) <= set(df["key"])
    gs = df.set_index("key").loc["gs"]
    assert gs["label"] == METRICS["gs"].label and gs["direction"] == "↑"
    assert "fuzzy_threshold=0.8" in gs["settings (defaults)"]
    assert df.set_index("key").loc["t2r", "direction"] == "↓"


def test_t08_paper_rows_then_unlisted(tmp_path):
    (tmp_path / "scores" / "closed").mkdir(parents=True)
    (tmp_path / "scores" / "closed" / "tfidf.json").write_text("{}")
    df = t08_baselines.load(tmp_path)
    assert len(df) == len(SPECS)
    assert df["paper Baseline"].iloc[:14].tolist()[8] == "Persona-Grounded"
    assert df.set_index("key").loc["tfidf", "scored in"] == "closed"
    assert df.set_index("key").loc["dense", "scored in"] == "not run"
    assert df.iloc[-1]["paper Baseline"] == "not in Table 8"
    assert all(isinstance(s, str) and s for s in df["what it does here"])


def test_t02_checks_names(monkeypatch):
    df = t02_gap_map.load("unused")
    assert len(df) == 4 and df["Reported on"].str.contains("Table 5").any()
    monkeypatch.setitem(t02_gap_map.MAP, "(i) Single-Metric Ranking", (("no_such",), (), ()))
    with pytest.raises(ValueError, match="no_such"):
        t02_gap_map.check()


def test_f01_links_each_gap():
    df = f01_overview.load("unused")
    assert df["gap"].nunique() == 4 and set(df["competency"]) == set(f01_overview.COMPETENCIES)


def test_t20_spreads_hand_computed(tmp_path, scores):
    # one baseline, two dialogues: d1 turns (1, 0), d2 turn (1); sd = 0.57735
    turns = [
        {"dialogue_id": "d1", "turn_id": 2, "bleu4": 1.0, "gs": 1.0, "cd": 0.0},
        {"dialogue_id": "d1", "turn_id": 4, "bleu4": 0.0, "gs": 1.0, "cd": 0.0},
        {"dialogue_id": "d2", "turn_id": 2, "bleu4": 1.0, "gs": 1.0, "cd": 1.0},
    ]
    scores(tmp_path, "closed", "tfidf", {"recall@1": 0.5}, per_turn=turns)
    scores(tmp_path, "closed", "memory", {"recall@1": 0.5}, per_turn=turns)  # not in Table 20
    df = t20_spreads.load(tmp_path, runs=["closed"])
    assert set(df["baseline"]) == {"tfidf"} and df["metric"].tolist() == ["bleu4", "gs", "cd"]
    row = df.set_index("metric").loc["bleu4"]
    assert row["sd"] == pytest.approx(np.std([1, 0, 1], ddof=1)) and row["paper_n_turns"] == 52274
    assert np.isnan(row["paper_sd"]) and row["n_dialogues"] == 2
    assert t20_spreads.facts(df)["n_baselines"] == 1
    assert list(t20_spreads.display(df).columns)[:2] == ["metric", "Baseline"]


DB = """# Files
book/_build/html/index.html: book/content/a.ipynb book/content/b.ipynb results/p/.done
# Not a target:
book/content/a.ipynb: notebooks/a.py results/p/.done src/x.py
results/p/runs/closed/records.parquet: data/kb/p/MANIFEST.json data/dialogues/p/dialogues.jsonl configs/p/closed.yaml | .venv/.installed
results/p/.done: results/p/scores/closed/tfidf.json
# Implicit Rules
results/p/scores/closed/%.json: results/p/runs/closed/records.parquet $(wildcard x/$*.yaml)
book/content/%.ipynb: notebooks/%.py results/p/.done
# files hash-table stats:
"""


def test_f03_collapses_make_database():
    rules = f03_pipeline.file_rules(DB)
    assert rules["results/p/scores/closed/tfidf.json"] == ["results/p/runs/closed/records.parquet"]
    assert rules["book/content/b.ipynb"] == ["notebooks/b.py", "results/p/.done"]
    edges = f03_pipeline.collapse(rules)
    pairs = set(zip(edges["source"], edges["target"], strict=True))
    assert ("baseline runs", "scores") in pairs and ("KB", "baseline runs") in pairs
    assert ("scores", "notebooks (papermill)") in pairs and ("notebooks (papermill)", "book (HTML)") in pairs
    assert not any("src" in n or ".venv" in n for n in set(edges["source"]) | set(edges["target"]))
    assert edges.set_index("target").loc["book (HTML)", "target_files"].max() == 1


def test_f03_stages_exist():
    assert len(f03_pipeline.stages()) == 5


def test_f03_cycle_is_an_error():
    with pytest.raises(ValueError, match="cycle"):
        f03_pipeline._layers(pd.DataFrame({"source": ["a", "b"], "target": ["b", "a"]}))


def test_f02_printed_values_on_the_page():
    from trace_crs.report import f02_gap

    df = pd.DataFrame({"Baseline": ["Dense", "TF-IDF"], "r1_open": [0.1, 0.2], "cgs_open": [0.8, 0.7],
                       "paper_r1_open": [0.05, 0.099], "paper_cgs_open": [0.855, np.nan], "n_turns": [5, 5]})
    shown = f02_gap.printed(df)
    assert shown["CGS open (paper)"].tolist()[0] == 0.855 and np.isnan(shown["CGS open (paper)"].tolist()[1])
    assert shown["R@1 Δ"].tolist() == pytest.approx([0.05, 0.101])


def test_performance_rows_and_sources(tmp_path):
    import json

    from trace_crs.report import performance

    (tmp_path / "kb.json").write_text(json.dumps({"cli_build_seconds": 12.34, "cli_within_budget": True,
                                                  "cli_budget_seconds": 60.0, "cli_load_1min": 1.0,
                                                  "date": "2026-12-02", "machine": "x86_64, 2 cores"}))
    df = performance.load("unused", bench_dir=tmp_path)
    assert list(df.columns) == ["What", "Measured", "Target"]
    assert "12.3 s (within the 60 s budget)" in df["Measured"].tolist()
    assert performance.facts(df) == {"n_rows": len(df), "n_measured": 1, "n_not_run": len(df) - 1}
    src = performance.sources(tmp_path)
    assert src.iloc[0]["date"] == "2026-12-02" and src.iloc[0]["conditions"] == "not recorded"
