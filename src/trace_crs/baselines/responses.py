"""Template responses of the non-LLM baselines (paper Appendix F, PopularityBaseline: "fixed
template responses per action type"), shared by every baseline that needs a cited text and by
the Popularity fallback of the LLM baselines.

A response is built from the four sentence kinds the paper finds in template responses
(Appendix L): *framing* ("I'd suggest X."), *rating-meta* (stars, review count and the price
level, in words, from the POI's metadata, not from reviews), *quote* sentences (two per POI when it has two quotable
sentences) and, when the POI's reviews mention user words that the quotes shown do not, one
*other-claim* sentence ("Reviews also mention quiet and patio.") — a claim beyond the evidence
shown, with no citation beside it, as template systems write them; the framing names the POI's
kind of place: style, else an adjective-like category (:func:`kind_phrase`).  Provenance coverage is therefore not 1 by construction.

Each quote is a verbatim span of one review — a whole sentence, cut to at most
``QUOTE_MAX_WORDS`` words — written ``"span" [Rn]`` (ARCHITECTURE §3).  A citation is
``{"label", "review_id", "quote", "start", "end"}`` with ``review.text[start:end] == quote``
(``start``/``end`` extend the §3 contract additively).  Sentences containing a double quote
are never quoted, so the quote delimiters stay unambiguous.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from trace_crs.baselines.base import BaselineOutput, TurnContext
from trace_crs.baselines.text import content_terms, tokenize
from trace_crs.cache import memo
from trace_crs.dialogues.schema import Span
from trace_crs.kb import KB
from trace_crs.kb.price import LEVEL_WORDS
from trace_crs.kb.schema import POI
from trace_crs.segment import sentence_spans

QUOTE_MAX_WORDS = 25
QUOTE_MIN_WORDS = 4
_WORD_END = re.compile(r"\S+")
_CATEGORY_WORD = re.compile(r"[a-z]+")


def quotable_spans(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of each quotable sentence of review ``text``: the sentences of the one
    splitter (:func:`trace_crs.segment.sentence_spans`) cut after ``QUOTE_MAX_WORDS`` words;
    sentences with a double quote or fewer than ``QUOTE_MIN_WORDS`` words are skipped."""
    spans = []
    for start, end in sentence_spans(text):
        words = list(_WORD_END.finditer(text, start, end))
        if len(words) < QUOTE_MIN_WORDS or '"' in text[start:end]:
            continue
        spans.append((start, words[min(len(words), QUOTE_MAX_WORDS) - 1].end()))
    return spans


@dataclass(frozen=True)
class QuoteIndex:
    """The quotable sentences of one POI in tie-break order (higher-starred review, then smaller
    review id, then earlier sentence), with each sentence's distinct tokens as vocabulary ids:
    ``token_ids[k]`` occurs in sentence ``sentence_of[k]``."""

    quotes: tuple[Span, ...]
    token_ids: np.ndarray
    sentence_of: np.ndarray


def quote_index(kb: KB, poi_id: str) -> QuoteIndex:
    """The memoised :class:`QuoteIndex` of ``poi_id`` (token ids from one per-KB vocabulary)."""
    table = memo(kb, "quote_index")
    if poi_id not in table:
        vocab = memo(kb, "quote_vocab")
        quotes: list[Span]
        quotes, ids, owner = [], [], []
        for review in sorted(kb.reviews_of(poi_id), key=lambda r: (-r.stars, r.review_id)):
            for start, end in quotable_spans(review.text):
                span = review.text[start:end]
                for token in set(tokenize(span)):
                    ids.append(vocab.setdefault(token, len(vocab)))
                    owner.append(len(quotes))
                quotes.append(Span(review.review_id, start, end, span))
        table[poi_id] = QuoteIndex(tuple(quotes), np.array(ids, dtype=np.int32), np.array(owner, dtype=np.int32))
    return table[poi_id]


def _overlaps(kb: KB, poi_id: str, terms: set[str]) -> tuple[QuoteIndex, np.ndarray]:
    index = quote_index(kb, poi_id)
    vocab = memo(kb, "quote_vocab")
    wanted = np.zeros(len(vocab), dtype=bool)
    wanted[[vocab[t] for t in terms if t in vocab]] = True
    return index, np.bincount(index.sentence_of[wanted[index.token_ids]], minlength=len(index.quotes))


def choose_quote(kb: KB, poi_id: str, terms: set[str]) -> Span | None:
    """The review sentence of ``poi_id`` sharing most ``terms``; ties go to the higher-starred
    review, then the smaller review id, then the earlier sentence.  None if nothing quotable."""
    quotes = choose_quotes(kb, poi_id, terms, 1)
    return quotes[0] if quotes else None


def choose_quotes(kb: KB, poi_id: str, terms: set[str], k: int) -> list[Span]:
    """Up to ``k`` sentences of ``poi_id`` by overlap with ``terms`` (ties as in
    :func:`choose_quote`), at most one per review."""
    index, overlap = _overlaps(kb, poi_id, terms)
    order = sorted(range(len(index.quotes)), key=lambda i: (-overlap[i], i))  # stable: tie-break order
    out: list[Span] = []
    for i in order:
        if all(q.review_id != index.quotes[i].review_id for q in out):
            out.append(index.quotes[i])
        if len(out) == k:
            break
    return out


def mentioned_terms(kb: KB, poi_id: str, terms: set[str], k: int = 2) -> list[str]:
    """Up to ``k`` of the user's ``terms`` (alphabetical) that occur in the POI's reviews."""
    table = memo(kb, "review_terms")
    if poi_id not in table:
        table[poi_id] = frozenset(t for r in kb.reviews_of(poi_id) for t in tokenize(r.text))
    return sorted(t for t in terms if t in table[poi_id])[:k]


class Citer:
    """Hands out ``[R1]``, ``[R2]``, … labels and collects the citation records."""

    def __init__(self) -> None:
        self.citations: list[dict[str, Any]] = []

    def cite(self, quote: Span | None) -> str:
        """``"span" [Rn]`` for a quote (registering it), or "" for None."""
        if quote is None:
            return ""
        label = f"R{len(self.citations) + 1}"
        self.citations.append(
            {"label": label, "review_id": quote.review_id, "quote": quote.quote, "start": quote.start, "end": quote.end}
        )
        return f'"{quote.quote}" [{label}]'


LEADS = ("One reviewer said:", "Another wrote:", "A guest noted:", "Someone else added:")


def _quotes(citer: Citer, kb: KB, poi_id: str, terms: set[str], k: int, first_lead: int = 0) -> list[str]:
    return [
        f"{LEADS[(first_lead + i) % len(LEADS)]} {citer.cite(q)}."
        for i, q in enumerate(choose_quotes(kb, poi_id, terms, k))
    ]


def _rating(kb: KB, poi_id: str) -> str:
    poi = kb.pois[poi_id]
    price = f", price {'$' * poi.price} ({LEVEL_WORDS[poi.price]})" if poi.price is not None else ""
    return f"{poi.name} is rated {poi.stars:.1f} stars across {poi.review_count} reviews{price}."


def _claim(kb: KB, poi_id: str, terms: set[str], quoted: Sequence[str]) -> list[str]:
    """An uncited claim: user words the POI's reviews mention but the quotes shown do not."""
    shown = {t for q in quoted for t in tokenize(q)}
    said = mentioned_terms(kb, poi_id, terms - shown)
    return [f"Reviews also mention {' and '.join(said)}."] if said else []


def _plural(category: str) -> bool:
    """Whether a category names things in the plural (Yelp's "Restaurants", "Sushi Bars",
    "Hotels & Travel"): some word ends in a plural "s" ("Swiss", "Asian Fusion" do not)."""
    return any(w.endswith("s") and not w.endswith(("ss", "us", "is")) for w in _CATEGORY_WORD.findall(category.lower()))


def kind_phrase(poi: POI) -> str:
    """What kind of place ``poi`` is, with its article: its style facet ("an italian spot", "a
    boutique spot"), else the first category that reads as an adjective ("a swiss spot"), else
    the POI type ("a restaurant", "an attraction") — real Yelp POIs list plural umbrella
    categories first ("Restaurants", "Hotels & Travel"), which read as "a restaurants spot"."""
    style = poi.attributes.get("style")
    kind = str(style).replace("_", " ") if style else None
    kind = kind or next((c.lower() for c in poi.categories if c.strip() and not _plural(c)), None)
    noun = f"{kind} spot" if kind else poi.poi_type.replace("_", " ")
    return f"{'an' if noun[0] in 'aeiou' else 'a'} {noun}"


def _framing(kb: KB, poi_id: str, lead: str) -> str:
    poi = kb.pois[poi_id]
    return f"{lead} {poi.name}, {kind_phrase(poi)}."


def render(
    action: str, ranked: Sequence[str], kb: KB, terms: set[str], extra: str = ""
) -> tuple[str, list[dict[str, Any]]]:
    """Text and citations for a ``recommend`` or ``compare`` turn over ``ranked``.

    recommend: framing, rating-meta (stars, reviews, price level in words), two quotes and
    (if the reviews mention user words the quotes do not) an uncited claim for the top POI,
    then a second option with one quote.  compare: framing, then rating-meta and two quotes
    per POI, a claim, and a closing preference.  ``extra`` (e.g.
    distance notes) is appended verbatim.  Empty ``ranked`` gives a text without citations.
    """
    citer = Citer()
    if not ranked:
        return "I could not find a matching place among the options I have.", []
    first = ranked[0]
    if action == "compare" and len(ranked) > 1:
        second = ranked[1]
        q1, q2 = _quotes(citer, kb, first, terms, 2), _quotes(citer, kb, second, terms, 2, first_lead=2)
        parts = [
            f"Here are two options: {kb.pois[first].name} and {kb.pois[second].name}.",
            _rating(kb, first),
            *q1,
            _rating(kb, second),
            *q2,
            *_claim(kb, first, terms, q1),
            f"I would lean towards {kb.pois[first].name}.",
        ]
    else:
        q1 = _quotes(citer, kb, first, terms, 2)
        parts = [_framing(kb, first, "I'd suggest"), _rating(kb, first), *q1, *_claim(kb, first, terms, q1)]
        if len(ranked) > 1:
            parts += [_framing(kb, ranked[1], "Another option is"), *_quotes(citer, kb, ranked[1], terms, 1, 2)]
    text = " ".join(parts)
    return (text + (" " + extra if extra else "")).strip(), citer.citations


def template_output(ctx: TurnContext, ranked: list[str], extra: str = "") -> BaselineOutput:
    """A non-LLM baseline's turn: ``ranked`` with the template response :func:`render` writes
    for the turn's act over it (the user's content words as claim terms; ``extra`` appended)."""
    text, citations = render(ctx.action, ranked, ctx.kb, content_terms(ctx.user_texts), extra=extra)
    return BaselineOutput(ranked, text, citations)
