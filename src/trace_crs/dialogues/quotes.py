"""Verbatim review spans that support a POI's aspects (paper §2.2: "System responses MUST
include EXACT verbatim review quotes ... with [Rn] citation labels").

A span is found by a facet-lexicon keyword match (``kb.lexicon.find_facets``) in one of the
POI's reviews, widened to the surrounding sentence and trimmed at word boundaries to at most
``MAX_QUOTE_CHARS`` characters; ``review.text[start:end] == quote`` always holds.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable
from typing import Any

from trace_crs.dialogues.schema import Dialogue, Span
from trace_crs.kb.lexicon import find_facets
from trace_crs.kb.review_writer import QUOTABLE_MAX_CHARS
from trace_crs.kb.store import KB
from trace_crs.segment import SENTENCE_END

MAX_QUOTE_CHARS = QUOTABLE_MAX_CHARS  # the synthetic writer keeps facet sentences this short


def sentence_window(text: str, start: int, end: int, max_chars: int = MAX_QUOTE_CHARS) -> tuple[int, int]:
    """Offsets of the sentence around ``text[start:end]``, cut at word boundaries to at most
    ``max_chars`` characters (always containing the match), with outer spaces and double
    quotes excluded."""
    left = max((m.end() for m in SENTENCE_END.finditer(text, 0, start)), default=0)
    nxt = SENTENCE_END.search(text, end)
    right = nxt.end() if nxt else len(text)
    quote_pos = [i for i, ch in enumerate(text) if ch == '"' and left <= i < right]
    left = max([left] + [i + 1 for i in quote_pos if i < start])
    right = min([right] + [i for i in quote_pos if i >= end])
    while right - left > max_chars:
        if start - left >= right - end:  # cut a word from the longer side
            cut = text.find(" ", left + 1, start)
            left = cut + 1 if cut != -1 else start
        else:
            cut = text.rfind(" ", end, right - 1)
            right = cut if cut != -1 else end
    while left < right and text[left].isspace():
        left += 1
    while right > left and text[right - 1].isspace():
        right -= 1
    return left, right


def _price_value(price: int) -> str:
    """The public price ceiling (kb.price) a review phrase about a POI of this price expresses."""
    return str(max(price, 2))


class QuoteFinder:
    """Cached look-up of supporting spans per (POI, facet, value)."""

    def __init__(self, kb: KB):
        self.kb = kb
        self._cache: dict[tuple[str, str, str], list[Span]] = {}

    def support(self, business_id: str, facet: str, value: Any) -> list[Span]:
        """Spans in the POI's reviews expressing ``facet = value`` (review-id order; one per
        review).  ``price_max`` is supported by the lexicon's price words for the POI's
        own price; ``anchor`` has no review support."""
        if facet == "anchor":
            return []
        if facet == "price_max":
            price = self.kb.pois[business_id].price
            if price is None:
                return []
            facet, value = "price", _price_value(price)
        key = (business_id, facet, str(value))
        if key not in self._cache:
            spans = []
            for review in self.kb.reviews_of(business_id):
                hits = [(s, e) for v, s, e in find_facets(review.text, facet) if v == str(value)]
                if hits:
                    a, b = sentence_window(review.text, *hits[0])
                    spans.append(Span(review.review_id, a, b, review.text[a:b]))
            self._cache[key] = spans
        return self._cache[key]

    def fallback(self, business_id: str) -> Span | None:
        """The first sentence of the POI's best-rated review (ties: smallest review id)."""
        reviews = self.kb.reviews_of(business_id)
        if not reviews:
            return None
        review = sorted(reviews, key=lambda r: (-r.stars, r.review_id))[0]
        a, b = sentence_window(review.text, 0, min(1, len(review.text)))
        return Span(review.review_id, a, b, review.text[a:b]) if b > a else None


def quote_owner_counts(dialogues: Iterable[Dialogue], kb: KB) -> list[tuple[str, int]]:
    """``(dialogue_id, number of POIs)`` for every ``citations[].quote`` of every system turn, in
    corpus order: the number of distinct POIs whose review texts hold the quote verbatim
    (case-sensitive substring; a quote never matches across two reviews)."""
    texts, owners, offsets, pos = [], [], [], 0
    for bid, reviews in sorted(kb.reviews_by_poi.items()):
        for review in reviews:
            texts.append(review.text)
            owners.append(bid)
            offsets.append(pos)
            pos += len(review.text) + 1
    corpus = "\x00".join(texts)
    seen: dict[str, int] = {}  # quote -> number of POIs (corpora repeat quotes: search each once)
    out = []
    for dialogue in dialogues:
        for turn in dialogue["turns"]:
            for citation in turn.get("citations", []) if turn["role"] == "system" else []:
                quote = citation["quote"]
                if quote not in seen:
                    pois, at = set(), corpus.find(quote)
                    while at != -1:
                        pois.add(owners[bisect_right(offsets, at) - 1])
                        at = corpus.find(quote, at + 1)
                    seen[quote] = len(pois)
                out.append((dialogue.get("dialogue_id", ""), seen[quote]))
    return out


def quote_specificity(dialogues: Iterable[Dialogue], kb: KB) -> dict[str, Any]:
    """How many POIs' reviews hold each cited quote verbatim (paper §2.2: a quote grounds a
    claim about one POI; :func:`quote_owner_counts`): the number of quotes, the share found in
    the reviews of exactly one POI, and the counts by number of POIs (0, 1, 2, 3+).  Every
    citation counts, repeats included (the share is of quotes as the corpus cites them)."""
    counts: dict[str, int] = {"0": 0, "1": 0, "2": 0, "3+": 0}
    owners = quote_owner_counts(dialogues, kb)
    for _, k in owners:
        counts["3+" if k >= 3 else str(k)] += 1
    n = len(owners)
    return {"n_quotes": n, "single_poi_share": counts["1"] / n if n else float("nan"), "by_n_pois": counts}
