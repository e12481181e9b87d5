"""The re-scoring analyses of App. L / App. O (``stats.sensitivity``, ``trace-crs stats sensitivity``)
on the hand-built run of ``fabricated_run`` (values worked out by hand in its docstring)."""
import importlib.util
from pathlib import Path

import pandas as pd
import pytest

from trace_crs.cli import main
from trace_crs.stats import sensitivity

_SPEC = importlib.util.spec_from_file_location("fabricated_run", Path(__file__).with_name("fabricated_run.py"))
fabricated_run = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(fabricated_run)


@pytest.fixture
def run(tmp_path):
    res = tmp_path / "results"
    fabricated_run.write_run(res)
    return res


def _value(df, baseline, setting):
    hit = df[(df["baseline"] == baseline) & (df["setting"] == setting)]
    assert len(hit) == 1
    return hit.iloc[0]["value"]


def test_fuzzy_sweep(run):
    df = sensitivity.analyse("fuzzy", run, ["closed"])
    # tfidf GS per turn: "fantastik" quote 1 (ratio 97.8) except exact 0; "pricey sushi" 0; no quote 1.
    for tau in (0.7, 0.8, 0.9):
        assert _value(df, "tfidf", tau) == pytest.approx(2 / 3)
    assert _value(df, "tfidf", "exact") == pytest.approx(1 / 3)
    assert _value(df, "popularity", "exact") == 1.0  # no quotes: vacuous GS 1
    assert set(df["run"]) == {"closed"} and set(df["n_dialogues"]) == {2}


def test_spatial_sweep_and_settings(run):
    df = sensitivity.analyse("spatial", run, ["closed"], settings=sensitivity.parse_settings("1,2,3"))
    # tfidf: D1 {P1, P2} 1.0007 km apart, D2 {P3, P4} ≈ 10 km; popularity: D2 {P1, P4} 2.0015 km.
    assert [_value(df, "tfidf", km) for km in (1.0, 2.0, 3.0)] == pytest.approx([0, .5, .5])
    assert [_value(df, "popularity", km) for km in (1.0, 2.0, 3.0)] == pytest.approx([0, 0, 1])


def test_nli_sweep_and_bimodality(run, monkeypatch):
    monkeypatch.setattr(sensitivity, "make_backend", lambda spec: fabricated_run.FakeNLI())
    df = sensitivity.analyse("nli", run, ["closed"])
    # tfidf claims: pasta (0.9), sushi (0.45, resolved), "P3 or P4" (no citation → 0).
    assert [_value(df, "tfidf", t) for t in (0.3, 0.4, 0.5, 0.6, 0.7)] == pytest.approx([2 / 3] * 2 + [1 / 3] * 3)
    assert _value(df, "popularity", 0.5) == 0.0 and set(df["backend"]) == {"fake"}
    b = sensitivity.analyse("bimodality", run, ["closed"], baselines=["tfidf", "popularity"])
    row = b.set_index("baseline").loc["tfidf"]
    assert (row["n_claims"], row["share_low"], row["share_borderline"], row["share_high"]) == (2, 0, 0.5, 0.5)
    assert list(b["baseline"]) == ["tfidf"]  # popularity cites nothing: no claims to score


def test_error_rates(run):
    df = sensitivity.analyse("errors", run, ["closed"]).set_index("baseline")
    # tfidf: grounding D1t4 fails; recommendation D2t2 top P3 ∉ {P1, P2}; relevance D1t2 omits "quiet".
    assert df.loc["tfidf", list(sensitivity.ERROR_KINDS)].tolist() == pytest.approx([1 / 3] * 3)
    # popularity: no quotes; top-1 wrong at D1t2 and empty at missing D1t4; neither says "quiet".
    assert df.loc["popularity", list(sensitivity.ERROR_KINDS)].tolist() == pytest.approx([0, 2 / 3, 2 / 3])
    assert df.loc["popularity", ["run", "n_dialogues", "n_turns"]].tolist() == ["closed", 2, 3]
    one = sensitivity.analyse("errors", run, ["closed"], n_dialogues=1, seed=42)
    assert set(one["n_dialogues"]) == {1}


def test_refusals(run):
    with pytest.raises(ValueError, match="needs an entailment backend"):
        sensitivity.analyse("nli", run, ["closed"], entailment="none")
    with pytest.raises(ValueError, match="reads one run"):
        sensitivity.analyse("bimodality", run, ["closed", "closed_llm"])
    with pytest.raises(ValueError, match="does not apply"):
        sensitivity.analyse("errors", run, ["closed"], settings=(0.5,))
    (run / "runs" / "closed" / "predictions" / "tfidf.jsonl").unlink()
    (run / "runs" / "closed" / "predictions" / "popularity.jsonl").unlink()
    (run / "runs" / "closed" / "predictions").rmdir()
    with pytest.raises(FileNotFoundError, match="predictions of run 'closed'"):
        sensitivity.analyse("errors", run, ["closed"])


def test_cli_writes_the_frame_it_computes(run, tmp_path, capsys):
    out = tmp_path / "sens" / "t16.parquet"
    assert main(["stats", "sensitivity", "fuzzy", "--results", str(run), "--runs", "closed",
                 "--settings", "0.8,exact", "--out", str(out)]) == 0
    saved = pd.read_parquet(out)
    expected = sensitivity.analyse("fuzzy", run, ["closed"], settings=(0.8, "exact"))
    pd.testing.assert_frame_equal(saved, expected.assign(setting=expected["setting"].astype(str)))
    assert sorted(p.name for p in out.parent.iterdir()) == ["t16.parquet"]  # no temporary file left
    assert main(["stats", "sensitivity", "nope", "--results", str(run), "--runs", "closed", "--out", str(out)]) == 2
    assert "unknown sensitivity analysis 'nope'" in capsys.readouterr().err
    inside = run / "runs" / "closed" / "x.parquet"
    assert main(["stats", "sensitivity", "errors", "--results", str(run), "--runs", "closed", "--out", str(inside)]) == 2
    assert "would overwrite the input" in capsys.readouterr().err
    assert main(["stats", "sensitivity", "errors", "--results", str(run), "--runs", "closed", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err  # the directory holds the input runs: the output guard speaks first
    assert "would overwrite the input" in err or "is a directory" in err
