"""Grounding metrics per system turn: GS, CD, PC, CGS, CGSent (paper §3, Appendix J, L).

Inputs per turn: the response text and ``cited`` = {label: cited review text} for the
labels that resolve (:mod:`trace_crs.metrics.quotes`).

* **GS** = (# grounded quotes) / (# quotes), per-quote credit (Appendix J: "fraction of quotes
  with 80% fuzzy match to source reviews").  Quotes are read by
  :mod:`trace_crs.dialogues.quote_reader` (trailing or label-first labels, straight or
  typographic marks).  A quote citing several labels (``"q" [R1, R2]``, ``"q" [R1][R2]``) counts
  once per label, each graded against its own review, exactly as ``"q" [R1] "q" [R2]`` would:
  each label is an attribution of the verbatim span to that review (§3, App. J), so the quote
  earns full credit only when every review it names holds it.  Grading against the best label
  instead would let a system name every review after every quote and never lose GS for a wrong
  attribution; counting the quote once with an all-labels rule would hide how many of its
  attributions hold.  A quote q citing review r (both lower-cased,
  white space collapsed) is *grounded* (:func:`quote_grounded`) iff

  1. q has ≥ :data:`MIN_QUOTE_WORDS` = 4 word tokens — the template baselines' shortest
     quotable sentence (``baselines.responses.QUOTE_MIN_WORDS``); shorter spans ("the",
     "great food") occur in most reviews by chance and carry no checkable claim;
  2. len(q) ≤ len(r) and ``partial_ratio(q, r)`` / 100 ≥ τ (τ = 0.80): the *quote* is found
     in the review — quote-in-review, never review-in-quote (rapidfuzz aligns the shorter
     string inside the longer, so without the length condition a whole review plus an
     invented sentence would match at 1.0); the same rule as the generator's validation
     (``dialogues.validate``);
  3. every sentence of q (``segment.sentence_spans``) alone reaches τ in r, so an invented
     sentence inside a long real span fails the quote even when it is under 20 % of it.

  A quote whose label does not resolve fails.  A quote that fails as written but holds an
  ellipsis ("…" or "...", the mark of an omission) is read as its pieces between ellipses: it
  is grounded when every piece is (each ≥ 4 words, found, sentence by sentence), so
  "great pasta …" and "A … B" quoted from one review pass while a piece that is not in it
  fails the quote; a quote that passes as written is never re-read (App. J is silent here;
  the reading is ours).  No quotes → 1.0 (the vacuous case the paper
  flags).  A quote stitched from two distant sentences of r fails condition 2 unless one part
  is under ~20 % of it (the fuzzy tolerance τ allows).
* **CD** = (word tokens of quotes of ≥ 4 words that occur verbatim — lower-cased, whitespace
  collapsed — in their cited review; a quote citing several labels counts its words once, if
  verbatim in any of them) / (word tokens of the response, ``[Rn]`` / ``[R1, R2]`` labels not
  counted; an elided quote counts its verbatim pieces of ≥ 4 words); tokens are ``\\w+`` runs; a response without tokens → 0.  One-word quotes
  therefore cannot lift CD over the CGS gate.
* **PC** (Algorithm 1) = (# distinct aspect terms mentioned that are covered) / (# distinct
  aspect terms mentioned), over the 41-term seed list :data:`ASPECT_SEEDS` (four families),
  case-insensitive whole-word matches; a term is covered if some ``[Rn]`` label starts within
  w characters (|label offset − mention offset| ≤ w, w = 80) of one of its mentions;
  overlapping terms each count once and repeats of a term merge.  A turn with no aspect
  mention scores 1.0 — every scored turn is a recommend/compare turn, so the paper's
  exclusion ("no aspect mention and no recommendation") never applies.
* **CGS** = GS × 1[CD ≥ 0.05] × max(PC, 0.5) per turn, then averaged over turns.
  Check against Table 22 (Dense GS 0.997, CD 0.393, PC 0.733, CGS 0.864): if PC is 0 or 1
  per turn (short template responses mention one or two aspects) and the gate passes, the
  mean is GS × (PC̄ + 0.5 (1 − PC̄)) = 0.997 × 0.8665 = 0.864; the same reading reproduces
  Popularity, TF-IDF, Spatial and Itinerary to the third decimal, while MRS (CD 0.001) is
  gated to ≈ 0.  So the per-turn product with the floor is the intended formula
  (``tests/metrics/test_grounding.py`` re-derives these rows).
* **CGSent** = entailment × 1[CD ≥ 0.05] × max(PC, 0.5) (Appendix L), same gate and floor.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from functools import lru_cache

import numpy as np

from trace_crs.config import ScoreConfig
from trace_crs.metrics.quotes import ANY_LABEL_RE, ELLIPSIS_RE, label_offsets, parse_quotes
from trace_crs.quote_rule import MIN_QUOTE_WORDS, _norm, quote_grounded, quote_match  # noqa: F401 (re-exported)
from trace_crs.segment import words

ASPECT_SEEDS: dict[str, tuple[str, ...]] = {
    "food_menu": (
        "seafood",
        "vegan",
        "vegetarian",
        "breakfast",
        "brunch",
        "dessert",
        "cocktails",
        "coffee",
        "pizza",
        "sushi",
        "cafe",
    ),
    "ambience_style": (
        "quiet",
        "cozy",
        "romantic",
        "lively",
        "casual",
        "elegant",
        "trendy",
        "rustic",
        "modern",
        "view",
    ),
    "logistics": (
        "parking",
        "wifi",
        "outdoor seating",
        "reservations",
        "delivery",
        "takeout",
        "wheelchair accessible",
        "pet-friendly",
        "pool",
        "location",
    ),
    "value_price": (
        "cheap",
        "affordable",
        "budget",
        "upscale",
        "luxury",
        "expensive",
        "value",
        "family-friendly",
        "deal",
        "moderate",
    ),
}
# One alternation (longest first) scanned once; no seed term contains another seed term as a
# whole word (checked in the tests), so non-overlapping matching finds every mention.
_TERMS_RE = re.compile(
    r"\b("
    + "|".join(re.escape(t) for t in sorted((t for ts in ASPECT_SEEDS.values() for t in ts), key=len, reverse=True))
    + r")\b",
    re.IGNORECASE,
)


@lru_cache(maxsize=200_000)
def is_verbatim(quote: str, review_text: str) -> bool:
    """Whether ``quote`` (≥ 4 words) occurs verbatim (case- and whitespace-insensitive) in the review."""
    q = _norm(quote)
    return len(words(q)) >= MIN_QUOTE_WORDS and q in _norm(review_text)


def elided_pieces(quote: str) -> list[str]:
    """The pieces of ``quote`` between ellipses (edge ellipses dropped); ``[quote]`` without one."""
    return [p for p in ELLIPSIS_RE.split(quote) if p.strip()]


def _grounded(quote: str, review_text: str, threshold: float) -> bool:
    """GS rule as written, else (an elided quote) every piece alone (module docstring)."""
    if quote_grounded(quote, review_text, threshold):
        return True
    pieces = elided_pieces(quote)
    return pieces != [quote] and bool(pieces) and all(quote_grounded(p, review_text, threshold) for p in pieces)


def _verbatim_words(quote: str, review_text: str) -> int:
    if is_verbatim(quote, review_text):
        return len(words(quote))
    pieces = elided_pieces(quote)
    return 0 if pieces == [quote] else sum(len(words(p)) for p in pieces if is_verbatim(p, review_text))


def quote_passes(text: str, cited: Mapping[str, str], threshold: float) -> list[bool]:
    """Per (quote, label) citation of ``text``: resolved and grounded (:func:`quote_grounded`, or
    piece by piece); a quote citing several labels is one citation per label (module docstring)."""
    return [lab in cited and _grounded(q.text, cited[lab], threshold) for q in parse_quotes(text) for lab in q.labels]


def grounding_score(
    texts: Sequence[str], cited: Sequence[Mapping[str, str]], threshold: float = ScoreConfig.fuzzy_threshold
) -> np.ndarray:
    """GS per turn (1.0 when a turn has no quotes)."""
    out = np.ones(len(texts))
    for i, (t, c) in enumerate(zip(texts, cited, strict=False)):
        passes = quote_passes(t, c, threshold)
        if passes:
            out[i] = sum(passes) / len(passes)
    return out


def citation_density(texts: Sequence[str], cited: Sequence[Mapping[str, str]]) -> np.ndarray:
    """CD per turn: verbatim-quote word tokens / response word tokens."""
    out = np.zeros(len(texts))
    for i, (t, c) in enumerate(zip(texts, cited, strict=False)):
        n = len(words(ANY_LABEL_RE.sub(" ", t)))
        if n:
            verbatim = sum(
                max((_verbatim_words(q.text, c[lab]) for lab in q.labels if lab in c), default=0)
                for q in parse_quotes(t)
            )
            out[i] = verbatim / n
    return out


def aspect_mentions(text: str) -> dict[str, list[int]]:
    """{seed term: offsets of its whole-word, case-insensitive mentions} for terms present."""
    out: dict[str, list[int]] = {}
    for m in _TERMS_RE.finditer(text):
        out.setdefault(m.group(1).lower(), []).append(m.start())
    return out


def provenance_coverage(texts: Sequence[str], window: int = ScoreConfig.pc_window) -> np.ndarray:
    """PC per turn (Algorithm 1); 1.0 when the turn mentions no aspect term."""
    out = np.ones(len(texts))
    for i, t in enumerate(texts):
        mentions = aspect_mentions(t)
        if not mentions:
            continue
        labels = np.array(label_offsets(t))
        covered = sum(
            bool(labels.size) and any(np.abs(labels - o).min() <= window for o in offs) for offs in mentions.values()
        )
        out[i] = covered / len(mentions)
    return out


def composite(
    score: np.ndarray,
    cd: np.ndarray,
    pc: np.ndarray,
    cd_gate: float = ScoreConfig.cd_gate,
    pc_floor: float = ScoreConfig.pc_floor,
) -> np.ndarray:
    """CGS (score = GS) or CGSent (score = entailment): score × 1[CD ≥ gate] × max(PC, floor)."""
    return np.asarray(score, float) * (np.asarray(cd) >= cd_gate) * np.maximum(np.asarray(pc, float), pc_floor)
