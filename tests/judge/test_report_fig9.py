"""CoRE Fig. 9 (trace_crs.report.core_fig9_factor_tau) on hand-built judge records: per evaluator, Kendall's
τ_b between the system rankings of every pair of factors, worked out by hand (ties, reversal,
a constant factor, too few systems)."""
import json
import math

import matplotlib
import pytest

from trace_crs.judge.core import FactorResult
from trace_crs.judge.factors import FACTORS
from trace_crs.judge.records import judged_record
from trace_crs.report import core_fig9_factor_tau

matplotlib.use("Agg")

# factor -> the rating of systems s1, s2, s3 (every other factor: as coherence)
RATINGS = {
    "coherence": (1, 2, 3),
    "recoverability": (3, 2, 1),          # reversed: -100
    "proactiveness": (1, 3, 2),           # pairs (1,2) C, (1,3) C, (2,3) D: (2 - 1) / 3
    "grammatical_correctness": (2, 2, 2),  # constant: no ranking, NaN
    "naturalness": (1, 1, 3),             # a tie: tau_b = 2 / sqrt(3 * 2)
}


def write(path, systems=("s1", "s2", "s3")):
    lines = []
    for i, system in enumerate(systems):
        for k in range(2):
            results = {}
            for n in FACTORS:
                rating = RATINGS.get(n, RATINGS["coherence"])[i]
                if system == "s3" and k == 1 and n == "coherence":
                    rating = None                       # a failed rating: left out of the mean
                results[n] = FactorResult(factor=n, rating=rating, rationale="r", attempts=1)
            lines.append(judged_record(f"{system}/d{k}", system, results, None, {"mode": "per-factor"}, {}))
    failed = {n: FactorResult(factor=n, rating=None, rationale="", attempts=1) for n in FACTORS}
    lines.append(judged_record("s4/d0", "s4", failed, None, {"mode": "per-factor"}, {}))  # never rated: dropped
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))


def test_short_names_are_the_papers():
    assert [core_fig9_factor_tau.short(f) for f in FACTORS] == ["Coh.", "Rec.", "Pro.", "Gra.", "Nat.", "App.", "Eff.",
                                                     "Nov.", "Div.", "Sem.", "Exp.", "Gro."]


def test_not_run_is_empty(tmp_path):
    df = core_fig9_factor_tau.load(tmp_path)
    assert df.empty and core_fig9_factor_tau.plot(df, tmp_path / "fig") == []
    assert core_fig9_factor_tau.facts(df)["n_evaluators"] == 0 and math.isnan(core_fig9_factor_tau.facts(df)["mean_tau"])


def test_tau_b_by_hand(tmp_path):
    write(tmp_path / "judge" / "live" / "core_a.jsonl")
    df = core_fig9_factor_tau.load(tmp_path)
    assert set(df["evaluator"]) == {"judge A, live"} and len(df) == len(FACTORS) ** 2
    tau = df.set_index(["factor_a", "factor_b"])["tau_b"]
    assert tau["coherence", "coherence"] == pytest.approx(100)
    assert tau["coherence", "recoverability"] == pytest.approx(-100)
    assert tau["coherence", "proactiveness"] == pytest.approx(100 / 3)
    assert tau["proactiveness", "coherence"] == pytest.approx(100 / 3)          # symmetric
    assert tau["coherence", "naturalness"] == pytest.approx(100 * 2 / math.sqrt(6))
    assert tau["coherence", "effectiveness"] == pytest.approx(100)
    assert math.isnan(tau["coherence", "grammatical_correctness"])
    assert math.isnan(tau["grammatical_correctness", "grammatical_correctness"])
    assert set(df["n_systems"]) == {3}                                           # s4 never rated


def test_one_system_gives_no_ranking_and_human_comes_first(tmp_path):
    write(tmp_path / "judge" / "closed" / "core_b.jsonl", systems=("s1",))
    write(tmp_path / "judge" / "closed" / "core_a.jsonl")
    human = tmp_path / "human.jsonl"
    human.write_text("".join(json.dumps({"dialogue_id": f"d{i}", "system": s, "annotator": "A1",
                                         "factors": {"coherence": r, "novelty": 4 - r}}) + "\n"
                             for i, (s, r) in enumerate([("s1", 0), ("s2", 2), ("s3", 4)])))
    df = core_fig9_factor_tau.load(tmp_path, human=human)
    assert list(dict.fromkeys(df["evaluator"])) == ["Human", "judge A, replayed", "judge B, replayed"]
    h = df[df["evaluator"] == "Human"].set_index(["factor_a", "factor_b"])
    assert h.loc[("coherence", "novelty"), "tau_b"] == pytest.approx(-100)
    assert math.isnan(h.loc[("coherence", "naturalness"), "tau_b"])  # naturalness unlabelled
    b = df[df["evaluator"] == "judge B, replayed"]
    assert b["tau_b"].isna().all() and set(b["n_systems"]) == {1}
    f = core_fig9_factor_tau.facts(df)
    assert (f["n_evaluators"], f["min_systems"], f["max_systems"]) == (3, 0, 3)
    figs = core_fig9_factor_tau.plot(df, tmp_path / "fig")
    assert len(figs) == 3 and (tmp_path / "fig" / "core_fig9_factor_tau_1.svg").exists()
    assert figs[0].axes[0].get_title().startswith("Human:")
