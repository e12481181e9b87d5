"""DenseRetrievalBaseline (paper Appendix F).

all-MiniLM-L6-v2 unit vectors from the one shared loader :func:`trace_crs.lm.embeddings.embed`.
POI document = name + categories + its top-3 reviews (most stars, then review id), each cut to
200 characters.  Query vector ``q`` = embedding of all user turns; negative preference
``q' = q − 0.5 · mean(e_r for rejected POIs r)``; score = ``q' · e_p``; rejected POIs also get
the hard demotion of :func:`trace_crs.baselines.ranking.rank_by_score`.

POI embeddings are computed once per KB and cached on disk (``dense_poi_<kb sha>.npz`` in
:func:`trace_crs.cache.disk_cache_dir`); query embeddings are memoised per process
and can be batch-computed ahead of time (and disk-cached) with :meth:`DenseBaseline.warm`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np

from trace_crs.atomic import write_atomic
from trace_crs.baselines.base import BaselineOutput, TurnContext
from trace_crs.baselines.ranking import rank_by_score
from trace_crs.baselines.registry import Registered
from trace_crs.baselines.responses import template_output
from trace_crs.baselines.text import query_text
from trace_crs.cache import disk_cache_dir, kb_key, memo
from trace_crs.kb import KB
from trace_crs.lm.embeddings import embed

TOP_REVIEWS, REVIEW_CHARS, REJECT_WEIGHT = 3, 200, 0.5


def _save(path: Path, save, *args, **kwargs) -> None:
    """Save through a closed file handle (numpy would add a suffix to a bare temporary path)."""
    with open(path, "wb") as fh:
        save(fh, *args, **kwargs)


def dense_document(kb: KB, poi_id: str) -> str:
    """Name + categories + top-3 reviews × 200 chars."""
    poi = kb.pois[poi_id]
    top = sorted(kb.reviews_of(poi_id), key=lambda r: (-r.stars, r.review_id))[:TOP_REVIEWS]
    return " ".join([poi.name, ", ".join(poi.categories), *(r.text[:REVIEW_CHARS] for r in top)])


def poi_embeddings(kb: KB) -> dict[str, np.ndarray]:
    """``{business_id: unit vector}`` for every KB POI (disk-cached for a written KB)."""
    table = memo(kb, "dense_poi")
    if table:
        return table
    ids = sorted(kb.pois)
    path = disk_cache_dir() / f"dense_poi_{kb_key(kb)[:16]}.npz" if kb.sha256 else None
    vecs = None
    if path is not None and path.exists():
        with np.load(path) as data:
            if list(data["ids"]) == ids:
                vecs = data["vecs"]
    if vecs is None:
        vecs = embed([dense_document(kb, i) for i in ids])
        if path is not None:
            write_atomic(path, lambda t: _save(t, np.savez, ids=np.array(ids), vecs=vecs))
    table.update(zip(ids, vecs, strict=False))
    return table


def query_vectors(kb: KB, texts: Iterable[str]) -> list[np.ndarray]:
    """Embeddings of ``texts``, batch-computing the ones not yet memoised."""
    texts = list(texts)
    table = memo(kb, "dense_query")
    missing = sorted({t for t in texts if t not in table})
    if missing:
        table.update(zip(missing, embed(missing), strict=False))
    return [table[t] for t in texts]


def dense_scores(ctx: TurnContext) -> np.ndarray:
    """``q' · e_p`` for each candidate."""
    docs = poi_embeddings(ctx.kb)
    (q,) = query_vectors(ctx.kb, [query_text(ctx.user_texts)])
    rejected = [docs[r] for r in sorted(ctx.rejected_poi_ids) if r in docs]
    if rejected:
        q = q - REJECT_WEIGHT * np.mean(rejected, axis=0)
    return np.array([float(docs[c] @ q) for c in ctx.candidates])


class DenseBaseline(Registered, key="dense"):
    """Semantic similarity with MiniLM."""

    def prepare(self, kb: KB) -> None:
        """Embed (or load) every POI document."""
        poi_embeddings(kb)

    def warm(self, contexts: Sequence[TurnContext]) -> None:
        """Batch-embed the queries of ``contexts`` (optional speed-up hook used by the runner).

        The query memo is cleared first, so a vector never depends on which earlier batch
        happened to embed the same text (batch composition changes the last float bits).
        The batch is cached on disk keyed by the SHA256 of its sorted texts, so the runs over
        the same dialogues with other pools (16, 32, open) reuse it.
        """
        if not contexts:
            return
        kb, texts = contexts[0].kb, frozenset(query_text(c.user_texts) for c in contexts)
        last = memo(kb, "dense_warm")
        if last.get("texts") != texts:
            table = memo(kb, "dense_query")
            table.clear()
            ordered = sorted(texts)
            digest = hashlib.sha256("\n".join(ordered).encode()).hexdigest()[:24]
            path = disk_cache_dir() / f"dense_query_{digest}.npy"
            if path.exists():
                table.update(zip(ordered, np.load(path), strict=False))
            else:
                query_vectors(kb, ordered)
                write_atomic(path, lambda t: _save(t, np.save, np.stack([table[q] for q in ordered])))
            last["texts"] = texts

    def predict(self, ctx: TurnContext) -> BaselineOutput:
        return template_output(ctx, rank_by_score(ctx.candidates, dense_scores(ctx), ctx.rejected_poi_ids))
