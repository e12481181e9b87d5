"""CoRE's mixture of evaluators chosen on labels (seed 001 §7.2, Fig. 11): for each factor, the
candidate judge with the highest quadratic-weighted kappa against human labels
(:func:`trace_crs.judge.agree.qwk`, ``sklearn.metrics.cohen_kappa_score(weights="quadratic")``).

CoRE picked its per-factor judges on its own movie labels (``data/mixture_paper.yaml`` copies
that choice); :func:`select_judges` makes the same choice on whatever labelled set is given, and
:func:`mixture_table` writes it in the ``judge core --aggregator mixture --mixture`` format.
Every candidate is scored on the same dialogues and ratings (:func:`comparable`).
Ties keep the first candidate in the order given; a factor on which every candidate's QWK is
undefined (too few labels, one label everywhere) keeps the first candidate and is marked
``defined = False`` — never a silent pick presented as measured.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from trace_crs.judge.agree import factor_agreement
from trace_crs.judge.factors import FACTORS


def select_judges(
    candidates: Mapping[str, pd.DataFrame], human: pd.DataFrame, qwk_reasons: Mapping[str, str] | None = None
) -> pd.DataFrame:
    """One row per factor: ``factor, judge, qwk, n, defined`` and ``qwk_<candidate>`` for every
    candidate (``candidates``: name → :func:`~trace_crs.judge.records.read_ratings` frame).
    ``qwk_reasons`` as in :func:`~trace_crs.judge.agree.factor_agreement`: such a factor's QWK is
    undefined, so it keeps the first candidate, ``defined = False``."""
    if not candidates:
        raise ValueError("no candidate judges to select from")
    tables = {
        name: factor_agreement(frame, human, qwk_reasons).set_index("factor")
        for name, frame in comparable(candidates).items()
    }
    rows = []
    for factor in FACTORS:
        scores = {name: float(t.loc[factor, "qwk"]) for name, t in tables.items()}
        ranked = sorted(
            scores, key=lambda n: -scores[n] if np.isfinite(scores[n]) else np.inf
        )  # stable: ties keep order
        best = ranked[0]
        rows.append(
            {
                "factor": factor,
                "judge": best,
                "qwk": scores[best],
                "n": int(tables[best].loc[factor, "n"]),
                "defined": bool(np.isfinite(scores[best])),
                **{f"qwk_{n}": s for n, s in scores.items()},
            }
        )
    return pd.DataFrame(rows)


def comparable(candidates: Mapping[str, pd.DataFrame]) -> dict[str, pd.DataFrame]:
    """The candidates restricted to what all of them rated: the dialogues every candidate judged
    and, per factor, a rating only where every candidate gave one — so each candidate's QWK is
    measured on the same labelled dialogues (a judge that skipped the hard ones cannot win by it)."""
    common = set.intersection(*(set(f["dialogue_id"]) for f in candidates.values()))
    frames = {n: f[f["dialogue_id"].isin(common)].set_index("dialogue_id").sort_index() for n, f in candidates.items()}
    for factor in FACTORS:
        missing = np.logical_or.reduce([f[factor].isna().to_numpy() for f in frames.values()])
        for f in frames.values():
            f.loc[missing, factor] = np.nan
    return {n: f.reset_index() for n, f in frames.items()}


def mixture_table(selection: pd.DataFrame, models: Mapping[str, str], source: str) -> dict[str, Any]:
    """The mixture YAML content: ``judges`` (name → ``{"model": …}``, from the records' judge
    ids), ``factors`` (factor → judge) and how they were chosen."""
    used = list(dict.fromkeys(selection["judge"]))
    return {
        "judges": {name: {"model": models[name]} for name in used},
        "factors": dict(zip(selection["factor"], selection["judge"], strict=False)),
        "selected_by": f"highest QWK against the human labels of {source} (trace-crs judge agree --select)",
        "qwk": {
            f: (None if not np.isfinite(q) else round(float(q), 4))
            for f, q in zip(selection["factor"], selection["qwk"], strict=False)
        },
    }
