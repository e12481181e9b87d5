"""The corpus checks of Table 3's page (report.t03_corpus): persona slice, shares with intervals, evidence."""
import pytest

from trace_crs.report import t03_corpus


def _per_turn(tmp_path, baseline: str, hits: list[float], dependent: list[bool]) -> None:
    import pandas as pd
    d = tmp_path / "scores" / "closed"
    d.mkdir(parents=True, exist_ok=True)
    (d / f"{baseline}.json").write_text("{}")
    pd.DataFrame({"dialogue_id": [f"d{i:02d}" for i in range(len(hits))], "turn_id": 2,
                  "persona_dependent": dependent, "recall@1": hits}).to_parquet(d / f"{baseline}.per_turn.parquet")


def test_persona_slice_hand_worked(tmp_path):
    # 25 persona-dependent dialogues: Persona-Grounded hits all, Aspect misses the first 10 -> +0.4;
    # 25 others: both hit the same turns -> a degenerate interval -> "insufficient n"
    dependent = [True] * 25 + [False] * 25
    _per_turn(tmp_path, "persona", [1.0] * 25 + [1.0, 0.0] * 12 + [1.0], dependent)
    _per_turn(tmp_path, "aspect", [0.0] * 10 + [1.0] * 15 + [1.0, 0.0] * 12 + [1.0], dependent)
    out = t03_corpus.persona_slice(tmp_path, n_boot=500)
    dep, other = out.loc["persona-dependent"], out.loc["other"]
    assert dep["delta"] == pytest.approx(0.4) and dep["n_dialogues"] == 25 and dep["n_turns"] == 25
    assert dep["persona"] == 1.0 and dep["aspect"] == pytest.approx(0.6)
    assert dep["ci_low"] > 0 and dep["verdict"] == "significant"
    assert other["delta"] == 0 and other["verdict"] == "insufficient n"


def test_persona_slice_empty_side(tmp_path):
    _per_turn(tmp_path, "persona", [1.0, 0.0], [True, True])
    _per_turn(tmp_path, "aspect", [0.0, 0.0], [True, True])
    other = t03_corpus.persona_slice(tmp_path, n_boot=50).loc["other"]
    assert other["n_dialogues"] == 0 and other["verdict"] == "insufficient n"


def test_share_ci_pooled_over_dialogue_clusters():
    import pandas as pd

    # d1 cites 2 single-POI quotes of 2, d2 none of 2: pooled 2/4; resampling the two dialogues
    # gives 0 (both d2), 0.5 or 1 (both d1), so the 95 % percentile interval is [0, 1]
    frame = pd.DataFrame({"dialogue_id": ["d1", "d2"], "single": [2, 0], "quotes": [2, 2]})
    out = t03_corpus.share_ci(frame, "single", "quotes", n_boot=1000, seed=42)
    assert out == {"share": 0.5, "ci_low": 0.0, "ci_high": 1.0, "k": 2, "n": 4}


def test_share_ci_no_event_uses_the_exact_interval():
    import pandas as pd

    # 0 violations in 10 pairs: the bootstrap interval is a point, Clopper–Pearson is
    # [0, 1 - 0.025 ** (1 / 10)] (the exact upper bound for k = 0)
    frame = pd.DataFrame({"dialogue_id": ["a", "b"], "bad": [0, 0], "pairs": [4, 6]})
    out = t03_corpus.share_ci(frame, "bad", "pairs", n_boot=200, seed=42)
    assert out["share"] == 0 and out["ci_low"] == 0 and (out["k"], out["n"]) == (0, 10)
    assert out["ci_high"] == pytest.approx(1 - 0.025 ** (1 / 10))


def test_share_ci_empty_is_nan():
    import math

    import pandas as pd

    out = t03_corpus.share_ci(pd.DataFrame(), "x", None, n_boot=10, seed=42)
    assert math.isnan(out["share"]) and (out["k"], out["n"]) == (0, 0)


def test_evidence_table_on_a_generated_corpus(tmp_path):
    from trace_crs.dialogues.generate import generate_simulated, write_corpus
    from trace_crs.dialogues.stats import evidence_stats
    from trace_crs.kb.store import load_kb, write_kb
    from trace_crs.kb.synthetic import build_synthetic

    pois, reviews, manifest = build_synthetic(per_cell=12, seed=42)
    write_kb(pois, reviews, tmp_path / "kb", manifest)
    kb = load_kb(tmp_path / "kb")
    dialogues = generate_simulated(kb, 40, 42, progress=False)
    path = write_corpus(dialogues, tmp_path / "d.jsonl")
    df = t03_corpus.evidence(tmp_path / "kb", path, n_boot=200)
    ref = evidence_stats(dialogues, kb)
    assert (df.at["quote_single", "k"], df.at["quote_single", "n"]) == (
        ref["quotes"]["by_n_pois"]["1"], ref["quotes"]["n_quotes"])
    assert df.at["negated", "k"] == ref["preferences"]["negated_dialogues"] and df.at["negated", "n"] == 40
    assert df.at["avoid", "n"] == ref["preferences"]["gold_pairs_checked"]["avoid"]
    assert df.at["avoid", "k"] == 0 and df.at["either", "k"] == 0  # gold honours them
    for key, row in df.iterrows():
        if row["n"]:
            assert row["ci_low"] <= row["share"] <= row["ci_high"], key
    facts = t03_corpus.evidence_facts(df)
    assert facts["negated_n"] == 40 and facts["quote_single_share"] == df.at["quote_single", "share"]


def test_evidence_display_formats_intervals():
    import pandas as pd

    df = pd.DataFrame({"measure": ["m"], "share": [0.25], "ci_low": [0.18], "ci_high": [0.31], "k": [5], "n": [20],
                       "target": ["≥ 0.10"]}, index=pd.Index(["negated"], name="key"))
    out = t03_corpus.evidence_display(df)
    assert out.to_dict("records") == [{"measure": "m", "share [95 % interval]": "0.250 [0.18, 0.31]", "k": 5, "n": 20,
                                       "target": "≥ 0.10"}]
