"""Per-turn error analysis (Appendix O, Figure 6): three binary error flags.

* grounding error = some quote of the response fails the GS fuzzy match (τ = 0.80) against
  its cited review (an unresolved label fails);
* recommendation error = the top-1 ranked POI is not a gold POI (an empty ranking errs);
* relevance error = some preference the user stated so far (facet values found by
  :func:`trace_crs.kb.lexicon.find_facets` in the user turns up to this turn, facets
  style, noise, ambience, features) is never addressed, i.e. none of that value's keywords
  appears in the response.  No stated preference → no relevance error.

Rates are means of the flags over turns; :func:`error_table` builds them for one system's
predictions (opt-in: not part of ``score_predictions``, which stays fast).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from trace_crs.config import ScoreConfig
from trace_crs.kb import KB
from trace_crs.kb.facets import FACET_KEYS
from trace_crs.kb.lexicon import find_facets
from trace_crs.metrics.dialogue import REC_ACTIONS
from trace_crs.metrics.grounding import quote_passes
from trace_crs.metrics.predictions import Key, cited_texts

FACETS = FACET_KEYS  # kb.facets: the canonical facets


def grounding_errors(
    texts: Sequence[str], cited: Sequence[Mapping[str, str]], threshold: float = ScoreConfig.fuzzy_threshold
) -> np.ndarray:
    """1 where some quote fails the fuzzy match."""
    return np.array([float(not all(quote_passes(t, c, threshold))) for t, c in zip(texts, cited, strict=False)])


def recommendation_errors(gold: Sequence[Sequence[str]], ranked: Sequence[Sequence[str]]) -> np.ndarray:
    """1 where the top-1 POI is missing or not gold."""
    return np.array([float(not r or r[0] not in set(g)) for g, r in zip(gold, ranked, strict=False)])


def facet_mentions(user_texts: Sequence[str]) -> set[tuple[str, str]]:
    """{(facet, value)} the facet lexicon finds in the user turns (App. O relevance errors; not the
    baselines' preference reader, which also reads negations, prices and places)."""
    return {(f, v) for text in user_texts for f in FACETS for v, _, _ in find_facets(text, f)}


def relevance_errors(texts: Sequence[str], user_histories: Sequence[Sequence[str]]) -> np.ndarray:
    """1 where a stated preference value is not expressed in the response."""
    out = np.zeros(len(texts))
    for i, (text, history) in enumerate(zip(texts, user_histories, strict=False)):
        wanted = facet_mentions(history)
        said = {(f, v) for f, v in wanted if any(val == v for val, _, _ in find_facets(text, f))}
        out[i] = float(bool(wanted - said))
    return out


def error_table(
    kb: KB,
    dialogues: Sequence[Mapping[str, Any]],
    predictions: Mapping[Key, dict],
    threshold: float = ScoreConfig.fuzzy_threshold,
) -> pd.DataFrame:
    """One row per reference recommend/compare turn: ``dialogue_id, turn_id`` and the three
    0/1 flags ``grounding_error, recommendation_error, relevance_error`` (missing prediction =
    empty ranking and text)."""
    empty = {"ranked_poi_ids": [], "text": "", "citations": []}
    rows, texts, cited, gold, ranked, hist = [], [], [], [], [], []
    for d in dialogues:
        users: list[str] = []
        for t in d["turns"]:
            if t["role"] == "user":
                users.append(t["text"])
            elif t["action"] in REC_ACTIONS:
                pred = predictions.get((d["dialogue_id"], t["turn_id"]), empty)
                rows.append((d["dialogue_id"], t["turn_id"]))
                texts.append(pred["text"])
                cited.append(cited_texts(kb, pred))
                gold.append(t.get("gold_poi_ids") or [])
                ranked.append(pred["ranked_poi_ids"])
                hist.append(list(users))
    out = pd.DataFrame(rows, columns=["dialogue_id", "turn_id"])
    out["grounding_error"] = grounding_errors(texts, cited, threshold)
    out["recommendation_error"] = recommendation_errors(gold, ranked)
    out["relevance_error"] = relevance_errors(texts, hist)
    return out
