"""Abstention page: best-F1 threshold and per-reason recall on hand-made sweeps."""
import numpy as np
import pandas as pd

from trace_crs.report import travelbench_abstention as tba


def _sweep():
    rows = [("tfidf", 0.1, 0.5, 0.5), ("tfidf", 0.2, 0.8, 0.8), ("tfidf", 0.3, 0.8, 0.8),
            ("spatial", 0.1, 0.4, np.nan), ("spatial", 0.5, 0.6, 0.6)]
    return pd.DataFrame([{"baseline": b, "tau": t, "precision": p, "recall": r, "f1": f, "false_abstention_rate": 0.1,
                          "tp": 1, "fp": 1, "fn": 1, "n_unsolvable": 2, "n_solvable": 10}
                         for b, t, (p, r), f in [(b, t, (p, p), f) for b, t, p, f in rows]])


def test_best_f1_takes_the_highest_f1_and_the_smallest_tau_on_ties():
    best = tba.best_f1(_sweep()).set_index("baseline")
    assert best.loc["tfidf", "tau"] == 0.2 and best.loc["tfidf", "f1"] == 0.8
    assert best.loc["spatial", "tau"] == 0.5       # the NaN-F1 row is never best


def test_recall_by_reason_declines_below_tau():
    conf = pd.DataFrame({"baseline": ["tfidf"] * 4, "best_score": [0.1, 0.3, -np.inf, 0.15],
                         "reason": ["contradictory", "contradictory", "uncovered", "solvable"]})
    best = pd.DataFrame({"baseline": ["tfidf"], "tau": [0.2]})
    table = tba.recall_by_reason(conf, best)
    assert table.loc["contradictory"].iloc[0] == 0.5 and table.loc["uncovered"].iloc[0] == 1.0
    assert table.loc["solvable"].iloc[0] == 1.0


def test_missing_outputs_say_not_run(tmp_path):
    frames = tba.load(tmp_path)
    assert frames["sweep"].empty and "No abstention outputs" in frames["sweep"].attrs["status"]
    assert tba.facts(frames)["n_unsolvable"] == 0
