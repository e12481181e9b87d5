"""Per-turn error analysis (Appendix O, Figure 6): three binary error flags.

* grounding error = some quote of the response fails the GS fuzzy match (τ = 0.80) against
  its cited review (an unresolved label fails);
* recommendation error = the top-1 ranked POI is not a gold POI (an empty ranking errs);
* relevance error = some preference the user stated so far (facet values found by
  :func:`trace_crs.kb.lexicon.find_facets` in the user turns up to this turn, facets
  style, noise, ambience, features) is never addressed, i.e. none of that value's keywords
  appears in the response.  No stated preference → no relevance error.

Rates are means of the flags over turns.
"""
from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np

from trace_crs.kb.lexicon import find_facets
from trace_crs.metrics.grounding import quote_passes

FACETS = ("style", "noise", "ambience", "features")


def grounding_errors(texts: Sequence[str], cited: Sequence[Mapping[str, str]], threshold: float = 0.80) -> np.ndarray:
    """1 where some quote fails the fuzzy match."""
    return np.array([float(not all(quote_passes(t, c, threshold))) for t, c in zip(texts, cited)])


def recommendation_errors(gold: Sequence[Sequence[str]], ranked: Sequence[Sequence[str]]) -> np.ndarray:
    """1 where the top-1 POI is missing or not gold."""
    return np.array([float(not r or r[0] not in set(g)) for g, r in zip(gold, ranked)])


def stated_preferences(user_texts: Sequence[str]) -> set[tuple[str, str]]:
    """{(facet, value)} expressed in the user turns."""
    return {(f, v) for text in user_texts for f in FACETS for v, _, _ in find_facets(text, f)}


def relevance_errors(texts: Sequence[str], user_histories: Sequence[Sequence[str]]) -> np.ndarray:
    """1 where a stated preference value is not expressed in the response."""
    out = np.zeros(len(texts))
    for i, (text, history) in enumerate(zip(texts, user_histories)):
        wanted = stated_preferences(history)
        said = {(f, v) for f, v in wanted if any(val == v for val, _, _ in find_facets(text, f))}
        out[i] = float(bool(wanted - said))
    return out
