"""Cost accounting per baseline (paper §5 efficiency, HotelQuEST Table 2).

Input: run records (ARCHITECTURE.md §4) with ``dialogue_id, baseline, model, prompt_tokens,
completion_tokens, latency_s``.  Dollars are recomputed from the dated price table
``stats/data/prices.yaml`` (US$ per 1M prompt / completion tokens):
``usd = prompt_tokens · input_per_mtok / 1e6 + completion_tokens · output_per_mtok / 1e6``.
Rows without a model (non-LLM baselines) cost 0 $.  The local llama.cpp model is priced by the
table's ``local`` entry (0 $): records name it by its server id ``openai/<weights
alias>`` (``trace_crs.lm.weights.Weights.model_id``; the alias ``<name>-sha256-<hash>`` of
``trace_crs.lm.weights.WEIGHTS`` carries the weights' hash), so every registered weights' id
is looked up as ``local`` (also with a native llama.cpp build's ``+<instruction sets>`` tag,
``trace_crs.lm.build``).  Any other model missing from the table, or with a null price, is an
error.  Wall time is the sum of ``latency_s`` as recorded by the runner (batch baselines record
batch time / n per turn), local model included; latency percentiles are over turns.

The LLM judge (Appendix U; :mod:`trace_crs.metrics.judge`) is a cost of *evaluating* a baseline,
not of running it: its usage is read from the score files' ``judge_usage`` and priced by the same
table (:func:`judge_costs`); :func:`with_judge` puts it beside the baseline's own costs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from importlib.resources import files
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import yaml

from trace_crs.lm.weights import WEIGHTS
from trace_crs.stats.frames import require_columns, require_finite

PRICE_FILE = files("trace_crs.stats") / "data" / "prices.yaml"
LOCAL = "local"
COST_COLUMNS = ("usd", "tokens", "seconds")
_RECORD_COLUMNS = ["dialogue_id", "baseline", "model", "prompt_tokens", "completion_tokens", "latency_s"]
JUDGE_COLUMNS = [
    "judge_model",
    "judge_turns",
    "judge_calls",
    "judge_prompt_tokens",
    "judge_completion_tokens",
    "judge_usd",
    "judge_s",
]


def load_prices(path: str | Path | None = None) -> dict:
    """The price table as ``{"as_of", "models": {name: {input_per_mtok, output_per_mtok}}}``."""
    source = Path(path) if path is not None else PRICE_FILE
    table = yaml.safe_load(source.read_text(encoding="utf-8"))
    if not isinstance(table, dict) or "as_of" not in table or not isinstance(table.get("models"), dict):
        raise ValueError(f"{source}: expected keys 'as_of' and 'models'")
    return table | {"source": str(source)}


def local_model_ids() -> frozenset[str]:
    """Model ids of the local llama.cpp server, one per registered weights file."""
    return frozenset(w.model_id for w in WEIGHTS.values())


def price_of(model: str, prices: dict, source: str = "records", strict: bool = True) -> tuple[float, float]:
    """``(input_per_mtok, output_per_mtok)`` of ``model``; local weights use the ``local`` entry.
    A model without a price is an error, or NaN rates with ``strict=False`` (a page that shows
    tokens and seconds beside an unknown $)."""
    local = model.split("+", 1)[0] in local_model_ids()  # a native build's tag: trace_crs.lm.build
    name = LOCAL if local and model not in prices["models"] else model
    entry = prices["models"].get(name)
    priced = entry is not None and entry.get("input_per_mtok") is not None and entry.get("output_per_mtok") is not None
    if not strict and not priced:
        return float("nan"), float("nan")
    if entry is None:
        raise ValueError(
            f"{prices['source']}: no price for model {model!r} (used in {source}); add it "
            f"(local llama.cpp ids are openai/<alias> of trace_crs.lm.weights.WEIGHTS)"
        )
    if entry.get("input_per_mtok") is None or entry.get("output_per_mtok") is None:
        raise ValueError(f"{prices['source']}: price of model {name!r} is null (as of {prices['as_of']}); fill it in")
    return float(entry["input_per_mtok"]), float(entry["output_per_mtok"])


def _usage(records: pd.DataFrame, source: str) -> pd.DataFrame:
    """Validated ``records`` plus ``tokens`` = prompt + completion tokens."""
    require_columns(records, _RECORD_COLUMNS, source)
    for col in ("prompt_tokens", "completion_tokens", "latency_s"):
        require_finite(records, col, source, min_value=0.0)
    tokens = records["prompt_tokens"].to_numpy(float) + records["completion_tokens"].to_numpy(float)
    return records.assign(tokens=tokens)


def record_costs(
    records: pd.DataFrame, prices: dict | None = None, source: str = "records", strict: bool = True
) -> pd.DataFrame:
    """``records`` plus ``usd`` and ``tokens`` columns (one row per record; ``strict``: :func:`price_of`)."""
    prices = prices or load_prices()
    records = _usage(records, source)
    models = records["model"].where(records["model"].notna() & (records["model"] != ""), None)
    rate_in, rate_out = np.zeros(len(records)), np.zeros(len(records))
    for name in sorted({m for m in models if m is not None}):
        mask = (models == name).to_numpy()
        rate_in[mask], rate_out[mask] = price_of(name, prices, source, strict)
    prompt, completion = records["prompt_tokens"].to_numpy(float), records["completion_tokens"].to_numpy(float)
    return records.assign(usd=(prompt * rate_in + completion * rate_out) / 1e6)


def cost_accounting(
    records: pd.DataFrame, prices: dict | None = None, source: str = "records", strict: bool = True
) -> pd.DataFrame:
    """Per baseline: totals and per-dialogue means of tokens and $, wall time, latency P50/P90."""
    prices = prices or load_prices()
    rows = []
    for base, f in record_costs(records, prices, source, strict).groupby("baseline", sort=True):
        n_dialogues = f["dialogue_id"].nunique()
        lat = f["latency_s"].to_numpy(float)
        rows.append(
            {
                "baseline": base,
                "n_dialogues": n_dialogues,
                "n_turns": len(f),
                "prompt_tokens": float(f["prompt_tokens"].sum()),
                "completion_tokens": float(f["completion_tokens"].sum()),
                "prompt_tokens_per_dialogue": float(f["prompt_tokens"].sum()) / n_dialogues,
                "completion_tokens_per_dialogue": float(f["completion_tokens"].sum()) / n_dialogues,
                "usd": float(f["usd"].sum(skipna=False)),
                "usd_per_dialogue": float(f["usd"].sum(skipna=False)) / n_dialogues,
                "wall_s": float(lat.sum()),
                "latency_p50_s": float(np.percentile(lat, 50)),
                "latency_p90_s": float(np.percentile(lat, 90)),
                "prices_as_of": prices["as_of"],
            }
        )
    return pd.DataFrame(rows)


def dialogue_costs(
    records: pd.DataFrame, prices: dict | None = None, source: str = "records", columns: Sequence[str] = COST_COLUMNS
) -> pd.DataFrame:
    """Oracle cost table: ``dialogue_id, baseline`` and ``columns`` (of ``usd, tokens, seconds``), each
    summed over the dialogue's turns; ``seconds`` sums ``latency_s``.  Models are priced only when
    ``usd`` is asked for, so seconds and tokens never need the price table."""
    unknown = [col for col in columns if col not in COST_COLUMNS]
    if unknown or not columns:
        raise ValueError(f"dialogue costs: columns must be among {COST_COLUMNS}, got {list(columns)}")
    costed = record_costs(records, prices, source) if "usd" in columns else _usage(records, source)
    out = costed.rename(columns={"latency_s": "seconds"}).groupby(["dialogue_id", "baseline"], sort=True)
    return out[list(columns)].sum().reset_index()


def judge_costs(
    usage: Mapping[str, Mapping[str, Any] | None],
    prices: dict | None = None,
    source: str = "score files",
    strict: bool = True,
) -> pd.DataFrame:
    """Per baseline (``usage``: baseline → a score file's ``judge_usage``, ``None`` when not judged):
    :data:`JUDGE_COLUMNS`, ``judge_usd`` recomputed from the price table like the baselines' own $,
    ``judge_s`` the judge model's seconds.  Baselines that were not judged are left out."""
    prices = prices or load_prices()
    rows = []
    for base, u in sorted(usage.items()):
        if not u:
            continue
        rate_in, rate_out = price_of(u["model"], prices, source, strict) if u.get("calls") else (0.0, 0.0)
        prompt, completion = float(u.get("prompt_tokens", 0)), float(u.get("completion_tokens", 0))
        rows.append(
            {
                "baseline": base,
                "judge_model": u["model"],
                "judge_turns": int(u.get("n_turns", 0)),
                "judge_calls": int(u.get("calls", 0)),
                "judge_prompt_tokens": prompt,
                "judge_completion_tokens": completion,
                "judge_usd": (prompt * rate_in + completion * rate_out) / 1e6,
                "judge_s": float(u.get("seconds", 0.0)),
            }
        )
    return pd.DataFrame(rows, columns=["baseline", *JUDGE_COLUMNS])


def with_judge(costs: pd.DataFrame, judge: pd.DataFrame) -> pd.DataFrame:
    """The cost table (:func:`cost_accounting`) with the judge's columns beside each baseline's own
    (NaN where the baseline was not judged) and ``total_usd`` / ``total_s`` = own + judge (a part
    that is absent counts 0; an unpriced part, NaN $, leaves the total unknown)."""
    out = costs.merge(judge, on="baseline", how="outer").sort_values("baseline", kind="stable").reset_index(drop=True)
    for col in ("usd", "wall_s", "judge_usd", "judge_s"):  # an empty judge frame merges in as object dtype
        out[col] = pd.to_numeric(out[col], errors="coerce")
    own = out["usd"].where(out["n_turns"].notna(), 0.0)
    judged = out["judge_usd"].where(out["judge_model"].notna(), 0.0)
    out["total_usd"] = own + judged
    out["total_s"] = out["wall_s"].fillna(0.0) + out["judge_s"].fillna(0.0)
    return out
