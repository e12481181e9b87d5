"""TFIDFBaseline (paper Appendix F).

Per-POI document = name + categories + all review texts.  Weights: sublinear term frequency
``1 + ln tf``, smoothed idf ``ln((1 + N) / (1 + df)) + 1``, the 80 stop words of
:mod:`trace_crs.baselines.text`, L2-normalised rows (scikit-learn ``TfidfVectorizer``).  The
query is all user turns so far; candidates are ranked by cosine similarity.  One index per
(city, POI type) slice of the KB, built once per process and shared by every baseline built on
it (Spatial, Hybrid-RRF, Itinerary, Knowledge-Enhanced), as are the per-turn scores.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from sklearn.feature_extraction.text import TfidfVectorizer

from trace_crs.baselines.base import BaselineOutput, TurnContext
from trace_crs.baselines.ranking import rank_by_score
from trace_crs.baselines.registry import Registered
from trace_crs.baselines.responses import template_output
from trace_crs.baselines.text import STOP_WORDS, query_text
from trace_crs.cache import memo, memo_call
from trace_crs.kb import KB


def poi_document(kb: KB, poi_id: str) -> str:
    """Name + categories + all review texts of one POI."""
    poi = kb.pois[poi_id]
    return " ".join([poi.name, " ".join(poi.categories), *(r.text for r in kb.reviews_of(poi_id))])


@dataclass
class TfidfIndex:
    ids: list[str]
    row: dict[str, int]
    vectorizer: TfidfVectorizer
    matrix: Any  # scipy.sparse CSR, one L2-normalised row per POI

    def scores(self, query: str, candidates: Sequence[str]) -> np.ndarray:
        """Cosine similarity of ``query`` with each candidate's document."""
        missing = [c for c in candidates if c not in self.row]
        if missing:
            raise ValueError(f"candidate(s) {missing[:3]} are not in this city/type TF-IDF index")
        if not candidates:
            return np.zeros(0)
        qvec = self.vectorizer.transform([query])
        rows = self.matrix[[self.row[c] for c in candidates]]
        return np.asarray((rows @ qvec.T).todense()).ravel()


def tfidf_index(kb: KB, city: str, poi_type: str) -> TfidfIndex:
    """The cached index of one city × type slice (built on first use)."""
    indexes = memo(kb, "tfidf_index")
    key = (city, poi_type)
    if key not in indexes:
        ids = kb.pois_in(city, poi_type)
        if not ids:
            raise ValueError(f"no POIs for city={city!r}, poi_type={poi_type!r} in the KB")
        vectorizer = TfidfVectorizer(
            sublinear_tf=True,
            smooth_idf=True,
            stop_words=sorted(STOP_WORDS),
            lowercase=True,
            token_pattern=r"[a-z0-9']+",
            dtype=np.float64,
        )
        matrix = vectorizer.fit_transform([poi_document(kb, i) for i in ids]).tocsr()
        indexes[key] = TfidfIndex(ids, {i: n for n, i in enumerate(ids)}, vectorizer, matrix)
    return indexes[key]


def tfidf_scores(ctx: TurnContext) -> np.ndarray:
    """TF-IDF cosine of the user-turn query with each candidate of ``ctx`` (pool order);
    memoised per turn (:func:`~trace_crs.cache.memo_call`) for the five baselines
    that use it, and returned read-only."""
    key = (ctx.city, ctx.poi_type, query_text(ctx.user_texts), ctx.candidates)

    def compute() -> np.ndarray:
        scores = tfidf_index(ctx.kb, key[0], key[1]).scores(key[2], key[3])
        scores.setflags(write=False)
        return scores

    return memo_call(ctx.kb, "tfidf_scores", key, compute)


class TfidfBaseline(Registered, key="tfidf"):
    """Sparse lexical retrieval over name + categories + reviews."""

    def prepare(self, kb: KB) -> None:
        """Indexes are built lazily per slice and cached per process."""

    def predict(self, ctx: TurnContext) -> BaselineOutput:
        return template_output(ctx, rank_by_score(ctx.candidates, tfidf_scores(ctx), ctx.rejected_poi_ids))
