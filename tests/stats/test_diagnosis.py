"""stats.diagnosis on the hand-built run of ``fabricated_run`` (values worked by hand there)."""
from __future__ import annotations

import pandas as pd
import pytest
import yaml

from tests.stats.fabricated_run import write_run
from trace_crs.errors import UsageError
from trace_crs.stats.diagnosis import SCORING_VARIANTS, diagnose, parse_corpus_runs, turn_mean


@pytest.fixture()
def results(tmp_path):
    res = tmp_path / "results"
    write_run(res, "closed")
    write_run(res, "closed_copy")
    return res


def _row(frame, variant, baseline, did):
    return frame[(frame.variant == variant) & (frame.baseline == baseline) & (frame.dialogue_id == did)].iloc[0]


def test_every_variant_scored(results):
    f = diagnose(results, "closed", {"kb_missingness": "closed_copy"})
    assert set(SCORING_VARIANTS) | {"kb_missingness"} <= set(f.variant)
    assert sum(v.startswith("cgs_formula=") for v in f.variant.unique()) == 7
    assert set(f.n_dialogues) == {2}
    # a corpus run with identical predictions scores exactly like the headline
    cols = [c for c in f.columns if c.endswith("_sum") or c in ("tsr", "t2r", "n_turns")]
    pd.testing.assert_frame_equal(f[f.variant == "kb_missingness"][cols].reset_index(drop=True),
                                  f[f.variant == "headline"][cols].reset_index(drop=True))


def test_t2r_counts_by_hand(results):
    """popularity D1: no hit in 2 recommend turns → 3 (recommend), 2 system turns + 1 = 3 (system),
    4 turns + 1 = 5 (all); D2: its compare turn hits (P1 in the top 2) → 1 / 1 / 2 (turn 2)."""
    f = diagnose(results, "closed")
    for variant, d1, d2 in [("headline", 3, 1), ("t2r_count=system", 3, 1), ("t2r_count=all", 5, 2)]:
        assert _row(f, variant, "popularity", "crs_yelp_00001")["t2r"] == d1
        assert _row(f, variant, "popularity", "crs_yelp_00002")["t2r"] == d2


def test_turn_sums_and_response_list_by_hand(results):
    """tfidf names exactly the POIs it ranks, so R@1 is the same under both lists: D1 2 of 2 turns,
    D2 0; its pooled R@1 = 2 / 3.  popularity D2 (gold P1, P2; names P1 then P4): R@1 = 1/2."""
    f = diagnose(results, "closed")
    for variant in ("headline", "ranked_list=response"):
        rows = f[(f.variant == variant) & (f.baseline == "tfidf")]
        assert turn_mean(rows, "recall@1") == pytest.approx(2 / 3)
        assert _row(f, variant, "popularity", "crs_yelp_00002")["recall@1_sum"] == pytest.approx(0.5)
    assert _row(f, "headline", "tfidf", "crs_yelp_00001")["n_turns"] == 2


def test_corpus_run_on_other_dialogues_is_refused(results):
    cfg = results / "runs" / "closed_copy" / "config.yaml"
    cfg.write_text(yaml.safe_dump({**yaml.safe_load(cfg.read_text()), "subset": 1}))
    with pytest.raises(UsageError, match="other dialogues"):
        diagnose(results, "closed", {"kb_missingness": "closed_copy"})


def test_parse_corpus_runs():
    assert parse_corpus_runs("a=b, c=d") == {"a": "b", "c": "d"}
    assert parse_corpus_runs(None) == {}
    with pytest.raises(UsageError):
        parse_corpus_runs("nonsense")


def test_cli_n_dialogues_above_the_run_warns_with_both_numbers(results, tmp_path, capsys):
    from trace_crs.cli import main

    out = tmp_path / "d.parquet"
    assert main(["stats", "diagnose", "--results", str(results), "--run", "closed", "--n-dialogues", "50",
                 "--out", str(out)]) == 0
    assert "--n-dialogues 50 is above the 2 dialogues of run closed; all 2 are used" in capsys.readouterr().err
    assert set(pd.read_parquet(out).n_dialogues) == {2}
