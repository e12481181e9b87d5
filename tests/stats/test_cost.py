"""Cost accounting with a hand-computed price table."""
from __future__ import annotations

import pandas as pd
import pytest

from trace_crs.stats.cost import cost_accounting, dialogue_costs, load_prices, price_of

PRICES = {"as_of": "2026-01-01", "source": "test", "models": {"m": {"input_per_mtok": 2.0, "output_per_mtok": 10.0},
                                                              "nul": {"input_per_mtok": None, "output_per_mtok": 1.0}}}


def _records() -> pd.DataFrame:
    return pd.DataFrame({"dialogue_id": ["d1", "d1", "d2", "d1"], "baseline": ["llm", "llm", "llm", "tfidf"],
                         "model": ["m", "m", "m", None], "prompt_tokens": [1000, 2000, 3000, 0],
                         "completion_tokens": [100, 100, 200, 0], "latency_s": [1.0, 2.0, 3.0, 0.5]})


def test_totals_per_dialogue_and_percentiles():
    out = cost_accounting(_records(), PRICES).set_index("baseline")
    # $ = (6000·2 + 400·10) / 1e6 = 0.016
    assert out.loc["llm", "usd"] == pytest.approx(0.016)
    assert out.loc["llm", "usd_per_dialogue"] == pytest.approx(0.008)
    assert out.loc["llm", "prompt_tokens_per_dialogue"] == 3000
    assert (out.loc["llm", "latency_p50_s"], out.loc["llm", "latency_p90_s"]) == (2.0, pytest.approx(2.8))
    assert out.loc["tfidf", "usd"] == 0.0 and out.loc["tfidf", "wall_s"] == 0.5


def test_dialogue_costs_for_the_oracle():
    out = dialogue_costs(_records(), PRICES).set_index(["dialogue_id", "baseline"])
    assert out.loc[("d1", "llm"), "usd"] == pytest.approx((3000 * 2 + 200 * 10) / 1e6)
    assert out.loc[("d1", "llm"), "seconds"] == 3.0 and out.loc[("d2", "llm"), "tokens"] == 3200


@pytest.mark.parametrize("model, message", [("unknown", "no price"), ("nul", "null")])
def test_unknown_or_null_price_is_an_error(model, message):
    with pytest.raises(ValueError, match=message):
        cost_accounting(_records().assign(model=model), PRICES)


def test_negative_tokens_and_packaged_table():
    with pytest.raises(ValueError, match="prompt_tokens"):
        cost_accounting(_records().assign(prompt_tokens=-1), PRICES)
    table = load_prices()
    assert table["models"]["local"]["input_per_mtok"] == 0.0 and table["as_of"]


def _local_ids() -> list[str]:
    """Server ids of the local weights, built here from the registry (``openai/<name>-sha256-<hash>``)."""
    from trace_crs.lm.weights import WEIGHTS
    return [f"openai/{w.name}-sha256-{w.sha256}" for w in WEIGHTS.values()]


def test_local_weights_cost_nothing_but_keep_their_wall_time():
    ids = _local_ids()
    records = pd.DataFrame({"dialogue_id": ["d1"] * len(ids), "baseline": ["llm"] * len(ids), "model": ids,
                            "prompt_tokens": [1000] * len(ids), "completion_tokens": [100] * len(ids),
                            "latency_s": [2.5] * len(ids)})
    out = cost_accounting(records).set_index("baseline")  # the packaged table: local = 0 $
    assert out.loc["llm", "usd"] == 0.0
    assert out.loc["llm", "wall_s"] == 2.5 * len(ids) and out.loc["llm", "prompt_tokens"] == 1000 * len(ids)
    per_dialogue = dialogue_costs(records).iloc[0]
    assert (per_dialogue["usd"], per_dialogue["seconds"], per_dialogue["tokens"]) == (0.0, 2.5 * len(ids),
                                                                                      1100 * len(ids))


def test_local_lookup_is_exact_and_an_explicit_entry_wins():
    local_id = _local_ids()[0]
    priced = {**PRICES, "models": {**PRICES["models"], "local": {"input_per_mtok": 0.0, "output_per_mtok": 0.0},
                                   local_id: {"input_per_mtok": 1.0, "output_per_mtok": 0.0}}}
    assert price_of(local_id, priced) == (1.0, 0.0)  # its own entry beats the local rule
    no_local = PRICES  # no `local` entry: a local id is unpriced
    with pytest.raises(ValueError, match="no price"):
        price_of(local_id, no_local)
    with pytest.raises(ValueError, match="no price for model 'openai/other-sha256-0000'"):
        price_of("openai/other-sha256-0000", priced)  # alias-shaped but not registered weights
    table = load_prices()
    assert price_of(local_id, table) == (0.0, 0.0) and price_of("local", table) == (0.0, 0.0)
    with pytest.raises(ValueError, match="null"):
        price_of("openai/gpt-5.4-mini", table)


def test_dialogue_cost_columns_and_prices_only_for_dollars():
    unknown = _records().assign(model="acme/unpriced")
    out = dialogue_costs(unknown, PRICES, columns=["seconds", "tokens"]).set_index(["dialogue_id", "baseline"])
    assert list(out.columns) == ["seconds", "tokens"]
    assert out.loc[("d1", "llm"), "seconds"] == 3.0 and out.loc[("d1", "llm"), "tokens"] == 3200
    with pytest.raises(ValueError, match="no price"):
        dialogue_costs(unknown, PRICES, columns=["usd"])
    with pytest.raises(ValueError, match="columns must be among"):
        dialogue_costs(_records(), PRICES, columns=["dollars"])


def test_judge_costs_beside_the_baselines_own():
    from trace_crs.stats.cost import judge_costs, with_judge

    usage = {"llm": {"model": "m", "n_turns": 4, "calls": 5, "prompt_tokens": 1000, "completion_tokens": 100,
                     "seconds": 12.5},
             "tfidf": None}                                              # not judged: left out
    judge = judge_costs(usage, PRICES)
    assert list(judge["baseline"]) == ["llm"]
    # $ = (1000·2 + 100·10) / 1e6 = 0.003
    assert judge.loc[0, "judge_usd"] == pytest.approx(0.003) and judge.loc[0, "judge_calls"] == 5
    out = with_judge(cost_accounting(_records(), PRICES), judge).set_index("baseline")
    assert out.loc["llm", "total_usd"] == pytest.approx(0.016 + 0.003)   # own 0.016 (above) + judge
    assert out.loc["llm", "total_s"] == pytest.approx(6.0 + 12.5)        # own wall 1+2+3 s + judge model s
    assert pd.isna(out.loc["tfidf", "judge_usd"]) and out.loc["tfidf", "total_s"] == 0.5
    with pytest.raises(ValueError, match="no price"):
        judge_costs({"llm": {**usage["llm"], "model": "unknown"}}, PRICES)
    # a page may show tokens and seconds of an unpriced model with $ unknown (NaN), never 0
    for model in ("unknown", "nul"):
        loose = judge_costs({"llm": {**usage["llm"], "model": model}}, PRICES, strict=False)
        assert pd.isna(loose.loc[0, "judge_usd"]) and loose.loc[0, "judge_prompt_tokens"] == 1000
    assert pd.isna(cost_accounting(_records().assign(model="nul"), PRICES, strict=False).loc[0, "usd"])
    unknown = with_judge(cost_accounting(_records(), PRICES), judge_costs({"llm": {**usage["llm"], "model": "nul"}},
                                                                          PRICES, strict=False)).set_index("baseline")
    assert pd.isna(unknown.loc["llm", "total_usd"]) and unknown.loc["tfidf", "total_usd"] == 0.0
