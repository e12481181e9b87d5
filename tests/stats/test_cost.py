"""Cost accounting with a hand-computed price table."""
from __future__ import annotations

import pandas as pd
import pytest

from trace_crs.stats.cost import cost_accounting, dialogue_costs, load_prices

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
