"""Template responses of the non-LLM baselines (paper Appendix F, PopularityBaseline: "fixed
template responses per action type"), shared by every baseline that needs a cited text and by
the Popularity fallback of the LLM baselines.

Each quote is a verbatim span of one review — a whole sentence, cut to at most
``QUOTE_MAX_WORDS`` words — written ``"span" [Rn]`` (ARCHITECTURE §3).  A citation is
``{"label", "review_id", "quote", "start", "end"}`` with ``review.text[start:end] == quote``
(``start``/``end`` extend the §3 contract additively).  Sentences containing a double quote
are never quoted, so the quote delimiters stay unambiguous.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from trace_crs.baselines.cache import memo
from trace_crs.baselines.text import tokenize
from trace_crs.kb import KB

QUOTE_MAX_WORDS = 25
QUOTE_MIN_WORDS = 4
_SENTENCE = re.compile(r"[^.!?\n]+[.!?]*")
_WORD_END = re.compile(r"\S+")


@dataclass(frozen=True)
class Quote:
    review_id: str
    quote: str
    start: int
    end: int


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of each sentence of ``text``, stripped of surrounding white space and
    cut after ``QUOTE_MAX_WORDS`` words; sentences with a double quote or fewer than
    ``QUOTE_MIN_WORDS`` words are skipped."""
    spans = []
    for m in _SENTENCE.finditer(text):
        raw = m.group(0)
        lead = len(raw) - len(raw.lstrip())
        start, end = m.start() + lead, m.start() + len(raw.rstrip())
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
    quotes: tuple[Quote, ...]
    token_ids: np.ndarray
    sentence_of: np.ndarray


def quote_index(kb: KB, poi_id: str) -> QuoteIndex:
    """The memoised :class:`QuoteIndex` of ``poi_id`` (token ids from one per-KB vocabulary)."""
    table = memo(kb, "quote_index")
    if poi_id not in table:
        vocab = memo(kb, "quote_vocab")
        quotes, ids, owner = [], [], []
        for review in sorted(kb.reviews_of(poi_id), key=lambda r: (-r.stars, r.review_id)):
            for start, end in sentence_spans(review.text):
                span = review.text[start:end]
                for token in set(tokenize(span)):
                    ids.append(vocab.setdefault(token, len(vocab)))
                    owner.append(len(quotes))
                quotes.append(Quote(review.review_id, span, start, end))
        table[poi_id] = QuoteIndex(tuple(quotes), np.array(ids, dtype=np.int32), np.array(owner, dtype=np.int32))
    return table[poi_id]


def choose_quote(kb: KB, poi_id: str, terms: set[str]) -> Quote | None:
    """The review sentence of ``poi_id`` sharing most ``terms``; ties go to the higher-starred
    review, then the smaller review id, then the earlier sentence.  None if nothing quotable."""
    index = quote_index(kb, poi_id)
    if not index.quotes:
        return None
    vocab = memo(kb, "quote_vocab")
    wanted = np.zeros(len(vocab), dtype=bool)
    wanted[[vocab[t] for t in terms if t in vocab]] = True
    overlap = np.bincount(index.sentence_of[wanted[index.token_ids]], minlength=len(index.quotes))
    return index.quotes[int(np.argmax(overlap))]  # argmax: the first sentence in tie-break order


class Citer:
    """Hands out ``[R1]``, ``[R2]``, … labels and collects the citation records."""

    def __init__(self) -> None:
        self.citations: list[dict[str, Any]] = []

    def cite(self, quote: Quote | None) -> str:
        """``"span" [Rn]`` for a quote (registering it), or "" for None."""
        if quote is None:
            return ""
        label = f"R{len(self.citations) + 1}"
        self.citations.append({"label": label, "review_id": quote.review_id, "quote": quote.quote,
                               "start": quote.start, "end": quote.end})
        return f'"{quote.quote}" [{label}]'


def _said(citer: Citer, kb: KB, poi_id: str, terms: set[str], lead: str) -> str:
    cited = citer.cite(choose_quote(kb, poi_id, terms))
    return f" {lead} {cited}." if cited else ""


def _card(kb: KB, poi_id: str) -> str:
    poi = kb.pois[poi_id]
    return f"{poi.name} ({poi.stars:.1f}★)"


def render(action: str, ranked: Sequence[str], kb: KB, terms: set[str],
           extra: str = "") -> tuple[str, list[dict[str, Any]]]:
    """Text and citations for a ``recommend`` or ``compare`` turn over ``ranked``.

    recommend: ``I recommend X (4.5★). A reviewer said: "…" [R1]. Another option is Y (4.0★):
    one guest wrote "…" [R2].``  compare: the top two side by side, one quote each.
    ``extra`` (e.g. distance notes) is appended verbatim.  Empty ``ranked`` gives a text
    without citations.
    """
    citer = Citer()
    if not ranked:
        return "I could not find a matching place among the options I have.", []
    first = ranked[0]
    if action == "compare" and len(ranked) > 1:
        second = ranked[1]
        text = (f"Comparing {_card(kb, first)} and {_card(kb, second)}: for {kb.pois[first].name},"
                + _said(citer, kb, first, terms, "a reviewer said").rstrip(".")
                + f"; for {kb.pois[second].name},"
                + _said(citer, kb, second, terms, "another wrote").rstrip(".")
                + f". I would lean towards {kb.pois[first].name}.")
    else:
        text = f"I recommend {_card(kb, first)}." + _said(citer, kb, first, terms, "A reviewer said:")
        if len(ranked) > 1:
            text += f" Another option is {_card(kb, ranked[1])}." + _said(
                citer, kb, ranked[1], terms, "One guest wrote")
    return (text + (" " + extra if extra else "")).strip(), citer.citations

