"""Judge validity (trace_crs.judge.validity): rank correlations checked against scipy, the seeded
stratified split, the floors and the choice; the CRSArena reader on the real development set
(../shared, skipped where absent)."""
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from trace_crs.judge import validity
from trace_crs.judge.validity import choose, kendall_rows, rank_agreement, spearman_rows, split

ARENA = Path(__file__).resolve().parents[3] / "shared" / "data" / "crsarena-eval-dev"
needs_arena = pytest.mark.skipif(not (ARENA / "crs_arena_eval_opendialkg.json").is_file(), reason="no ../shared CRSArena")


def test_row_correlations_equal_scipy_with_ties():
    rng = np.random.default_rng(3)
    x, y = rng.integers(0, 5, size=(6, 40)).astype(float), rng.integers(0, 3, size=(6, 40)).astype(float)
    assert spearman_rows(x, y) == pytest.approx([stats.spearmanr(a, b).statistic for a, b in zip(x, y)])
    assert kendall_rows(x, y, chunk=4) == pytest.approx([stats.kendalltau(a, b).statistic for a, b in zip(x, y)])


def test_rank_agreement_intervals_and_constant_judge():
    rng = np.random.default_rng(0)
    x = rng.normal(size=80)
    got = rank_agreement(x, x + rng.normal(size=80), 300, 42)
    assert got["n"] == 80 and got["rho_lo"] < got["rho"] < got["rho_hi"] and got["tau_lo"] < got["tau"] < got["tau_hi"]
    assert rank_agreement(x, x + rng.normal(size=80), 300, 42)["rho"] != got["rho"]   # data, not seed, moves rho
    const = rank_agreement(np.full(80, 4.0), x, 300, 42)                 # a judge that says 4 to everything
    assert np.isnan(const["rho"]) and np.isnan(const["rho_lo"])
    assert rank_agreement([1, 2, np.nan, 4, 5], [1, 2, 3, 4, 6], 50, 1)["n"] == 4   # NaN pairs left out


def test_partial_spearman_equals_the_correlation_of_rank_residuals():
    """Independent method: regress the ranks of x and y on the ranks of z (least squares) and
    correlate the residuals."""
    rng = np.random.default_rng(3)
    z = rng.normal(size=60)
    x, y = z + rng.normal(size=60), 0.5 * z + rng.normal(size=60).round(1)      # ties in y
    rx, ry, rz = (stats.rankdata(v) for v in (x, y, z))
    design = np.c_[np.ones(60), rz]
    res = [r - design @ np.linalg.lstsq(design, r, rcond=None)[0] for r in (rx, ry)]
    expected = np.corrcoef(*res)[0, 1]
    assert validity.partial_spearman_rows(x[None], y[None], z[None])[0] == pytest.approx(expected)
    got = validity.beyond_length(x, y, z, n_boot=200, seed=1)
    assert got["partial"] == pytest.approx(expected) and got["partial_lo"] < expected < got["partial_hi"]
    assert got["rho_length"] == pytest.approx(stats.spearmanr(x, z).statistic) and got["n"] == 60


def test_a_score_that_is_length_says_nothing_beyond_it():
    length = np.arange(20.0)
    human = length + np.tile([0.0, 3.0], 10)
    got = validity.beyond_length(length, human, length, n_boot=50, seed=0)
    assert got["rho_length"] == pytest.approx(1.0) and np.isnan(got["partial"])     # length explains it all
    assert np.isnan(validity.beyond_length(np.ones(20), human, length, 50, 0)["partial"])   # a constant judge


def test_split_is_seeded_stratified_and_exhaustive():
    ids = {"a": [f"a{i}" for i in range(5)], "b": [f"b{i}" for i in range(4)]}
    got = split(ids, 42)
    assert set(got) == {*ids["a"], *ids["b"]}
    assert sum(v == "selection" for k, v in got.items() if k.startswith("a")) == 3   # ceil(5/2)
    assert sum(v == "selection" for k, v in got.items() if k.startswith("b")) == 2
    assert split(ids, 42) == got and split({k: v[::-1] for k, v in ids.items()}, 42) == got   # input order irrelevant


def test_choose_on_selection_only():
    table = pd.DataFrame([
        {"score": "a", "aspect": "o", "half": "selection", "rho": 0.3},
        {"score": "a", "aspect": "o", "half": "reporting", "rho": 0.9},
        {"score": "b", "aspect": "o", "half": "selection", "rho": 0.5},
        {"score": "c", "aspect": "o", "half": "selection", "rho": float("nan")},
    ])
    assert choose(table, ["a", "b", "c"], "o") == "b"
    assert choose(table, ["c", "a"], "o") == "a"


@needs_arena
def test_real_development_set_reads_whole():
    from trace_crs.judge import crsarena

    convs = crsarena.load(ARENA / "crs_arena_eval_opendialkg.json")
    assert len(convs) == 200
    t = crsarena.to_transcript(convs[0])
    assert t.domain == "movies" and t.system == convs[0].conv_id.split("_")[0] + "_opendialkg"
    assert t.history_turns == 0 and {x.role for x in t.turns} == {"user", "assistant"}
    human = crsarena.human_aspects(convs)
    assert human["dialogue_overall"].between(0, 4).all() and "turn_relevance" in human
    face = crsarena.face_predictions(ARENA / "face_run_opendialkg.json")
    assert set(face["dialogue_id"]) == set(human["dialogue_id"])
    # the published FACE correlation on this half (README: 0.679), recomputed from its predictions
    both = human.merge(face, on="dialogue_id", suffixes=("_h", "_f")).dropna(subset=["dialogue_overall_f"])
    assert len(both) == 199                                               # FACE's file has one NaN prediction
    assert stats.spearmanr(both["dialogue_overall_f"], both["dialogue_overall_h"]).statistic == pytest.approx(0.679, abs=5e-4)


def test_bad_arena_file_names_line_and_field(tmp_path):
    from trace_crs.errors import DataError
    from trace_crs.judge import crsarena

    bad = tmp_path / "a.json"
    bad.write_text('[\n{"conv_id": "x_y_1", "dialogue": [{"turn_ind": 0, "role": "USER", "utterance": "hi"},\n'
                   ' {"turn_ind": 1, "role": "BOT", "utterance": "yo"}], "dial_level_aggregated": {}}\n]\n')
    with pytest.raises(DataError) as exc:
        crsarena.load(bad)
    assert exc.value.line == 2 and "dialogue.1.role" in str(exc.value)
