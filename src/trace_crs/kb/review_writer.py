"""Review text of the synthetic KB: Yelp-like reviews that express a POI's latent facets
(paper §2.1, Appendix D; facets of ``kb/facets.py``, keywords of ``data/facet_lexicon.yaml``).

A review is ``opener? + shuffled(facet sentences + body) + negation? + closer?`` with
star-consistent sentiment (4–5 → ``pos``, 3 → ``mixed``, 1–2 → ``neg``).  The body is
facet-free narrative, items, staff, timing, comparison and advice (:mod:`kb.review_grammar`);
its length follows the real length distribution (``data/review_lengths.yaml``, Yelp truncated
at 500 characters): a target length is drawn per review and sentences are added until it is
reached; a target at the cap is over-filled and cut at 500 characters, as Yelp text is.
A facet sentence wraps a noun phrase of ``data/review_bank.yaml`` that contains a lexicon
keyword of exactly that facet value, anchored to the POI (name, neighbourhood or signature
item) and at most ``QUOTABLE_MAX_CHARS`` long, so the quote the dialogue generator takes is the
whole sentence.  Every sentence is checked against a KB-wide ``used`` set and re-drawn on
collision (body sentences that cannot be made new are left out), so a quotable sentence — a
facet, negation or opening sentence — grounds in one POI only; every review text is unique too.  How often a facet is named follows real reviews
(:func:`assign_mentions`, rates calibrated on Yelp by :mod:`trace_crs.kb.calibration`): style
and price always show somewhere, amenities and atmosphere only now and then, so keyword
search over a POI's reviews finds some of its facets, not all.  Rarely a review
names a feature the POI *lacks*, always as an explicit negation ("There is no pool ..."),
or contradicts its noise level ("Others call it quiet, but it was noisy ...").
Texts never exceed ``REVIEW_MAX_CHARS``; facet sentences always lie before the cut.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from functools import lru_cache
from importlib import resources
from typing import Any

import numpy as np
import yaml

from trace_crs.kb.review_body import body_sentences, opening
from trace_crs.kb.review_grammar import (
    MAX_TRIES,
    SECTIONS,
    Voice,
    facet_hits,
    fill,
    pick,
    reserved,
)
from trace_crs.kb.schema import REVIEW_MAX_CHARS

NEGATION_RATE = 0.06  # share of reviews that add a complaint about a missing feature
CONTRADICTION_RATE = 0.05  # share of 1–3-star reviews that contradict the POI's noise level

QUOTABLE_MAX_CHARS = 120  # a facet sentence fits a quote whole (dialogues.quotes)
OPENER_RATE, CLOSER_RATE = 0.6, 0.45

Mention = tuple[str, str]  # (facet, value), e.g. ("features", "wifi")
__all__ = ["pick"]


@lru_cache(maxsize=1)
def review_lengths() -> dict[str, Any]:
    """The parsed ``data/review_lengths.yaml`` (Yelp length quantiles, truncated at 500)."""
    return yaml.safe_load(resources.files("trace_crs.kb").joinpath("data/review_lengths.yaml").read_text())


def draw_target_length(rng: np.random.Generator) -> int:
    """A review length drawn by inverse-CDF interpolation of the Yelp length quantiles."""
    qs = review_lengths()["quantiles"]
    return int(round(float(np.interp(rng.random(), np.linspace(0.0, 1.0, len(qs)), qs))))


@lru_cache(maxsize=1)
def review_bank() -> dict[str, Any]:
    """The parsed ``data/review_bank.yaml``."""
    return yaml.safe_load(resources.files("trace_crs.kb").joinpath("data/review_bank.yaml").read_text())


def sentiment(stars: int) -> str:
    """``pos`` for 4–5 stars, ``mixed`` for 3, ``neg`` for 1–2."""
    return "pos" if stars >= 4 else "mixed" if stars == 3 else "neg"


def poi_mentions(attributes: dict[str, Any], price: int | None) -> list[Mention]:
    """Every facet value of a POI that its reviews should express (price as lexicon value)."""
    out: list[Mention] = []
    for facet in ("style", "noise"):
        if attributes.get(facet) is not None:
            out.append((facet, attributes[facet]))
    if price is not None:
        out.append(("price", review_bank()["price_words"][price]))
    out += [("ambience", a) for a in attributes.get("ambience", [])]
    out += [("features", f) for f in attributes.get("features", [])]
    return out


def mention_rate(mention: Mention) -> float:
    """Per-review probability that a review names ``mention`` (``mention_rates`` of the review
    bank, calibrated on real Yelp reviews; ``pooled`` for values Yelp does not map)."""
    rates = review_bank()["mention_rates"]
    return float(rates.get(f"{mention[0]}:{mention[1]}", rates["pooled"]))


def assign_mentions(rng: np.random.Generator, mentions: list[Mention], n_reviews: int) -> list[list[Mention]]:
    """Spread mentions over reviews.  A POI's style and price are named at least once (a
    shuffled round-robin; reviews talk about the food and the bill); every other facet value is
    named in each review independently with its calibrated :func:`mention_rate`, so it may not
    show in any review at all, as in real data."""
    always = [m for m in mentions if m[0] in ("style", "price")]
    order = [always[i] for i in rng.permutation(len(always))]
    per_review: list[list[Mention]] = [[] for _ in range(n_reviews)]
    for i, mention in enumerate(order):
        per_review[i % n_reviews].append(mention)
    for slot in per_review:
        slot += [m for m in mentions if m[0] not in ("style", "price") and rng.random() < mention_rate(m)]
    return per_review


def facet_sentence(
    rng: np.random.Generator,
    mention: Mention,
    mood: str,
    voice: Voice | None = None,
    used: Collection[str] = (),
    local: Collection[str] = (),
) -> str:
    """A wrapper of the given sentiment around a noun phrase expressing ``mention``, anchored to
    the POI's ``voice``; it names exactly that facet value, is at most ``QUOTABLE_MAX_CHARS``
    long and in neither ``used`` nor ``local`` (re-drawn; ``ValueError`` if no draw qualifies)."""
    facet, value = mention
    want = {(facet, str(value))}
    for _ in range(4 * MAX_TRIES):
        phrase = pick(rng, review_bank()["np"][facet][value])
        if voice is None:
            wrapper = pick(rng, review_bank()["wrappers"][mood])
            return wrapper.format(np=phrase, NP=phrase[0].upper() + phrase[1:])
        wrapper = pick(rng, _facet_wrappers(mood))
        text = fill(rng, wrapper, voice, np=phrase, NP=phrase[0].upper() + phrase[1:])
        if len(text) <= QUOTABLE_MAX_CHARS and text not in used and text not in local and facet_hits(text) == want:
            return text
    raise ValueError(f"no facet sentence for {mention} of {voice.name if voice else '?'} qualifies")


def _facet_wrappers(mood: str) -> list[str]:
    from trace_crs.kb.review_grammar import grammar

    return list(grammar()["facet_wrappers"][mood])


# one sentence (no inner sentence end), so the quote around the feature word keeps the POI's name
_GRIPES = (
    "One gripe about {name}: {s}",
    "A heads-up about {name}: {s}",
    "About {name} in {hood}: {s}",
    "Worth knowing about {name}: {s}",
)


def _anchored(
    rng: np.random.Generator,
    sentence: str,
    voice: Voice,
    want: set[tuple[str, str]] | frozenset[tuple[str, str]],
    used: Collection[str],
    local: Collection[str],
) -> str | None:
    """``sentence`` (a negation or contradiction) tied to the POI, unique and naming only ``want``."""
    for _ in range(MAX_TRIES):
        text = fill(rng, pick(rng, _GRIPES), voice, s=sentence)
        if text not in used and text not in local and facet_hits(text) == want:
            return text
    return None


def _layout(
    rng: np.random.Generator, first: list[str], core: list[str], body: list[str], last: list[str], target: int
) -> list[str]:
    """Order the sentences and cut to the target: body sentences are kept while the text is
    short of ``target``; at the cap the text is over-filled and cut at ``REVIEW_MAX_CHARS``,
    with every core (facet) sentence moved before the cut."""
    kept, size = [], len(" ".join(first + core + last))
    for s in body:
        if size and (size >= target or (target < REVIEW_MAX_CHARS and size + (len(s) + 1) / 2 > target)):
            break
        kept.append(s)
        size += len(s) + 1
    middle = core + kept
    middle = [middle[i] for i in rng.permutation(len(middle))]
    sentences = first + middle + last
    if not sentences:
        raise ValueError("no sentence could be composed for the review")
    for _ in range(len(sentences) * 2):
        ends: list[int]
        ends, pos = [], 0
        for s in sentences:
            pos += len(s) + (1 if ends else 0)
            ends.append(pos)
        late = [i for i, s in enumerate(sentences) if s in core and ends[i] > REVIEW_MAX_CHARS]
        if not late:
            return sentences
        i = late[0]
        j = next((k for k in range(len(first), i) if sentences[k] not in core), None)
        if j is None:
            raise ValueError(f"facet sentences do not fit {REVIEW_MAX_CHARS} chars: {core}")
        sentences[i], sentences[j] = sentences[j], sentences[i]
    raise ValueError(f"cannot lay out a review with facet sentences {core}")


def write_review(
    rng: np.random.Generator,
    voice: Voice,
    stars: int,
    mentions: list[Mention],
    absent_features: Sequence[str],
    noise: str | None,
    used: set[str] | None = None,
) -> str:
    """Compose one review text (≤ ``REVIEW_MAX_CHARS``) expressing ``mentions`` about the POI
    of ``voice``; quotable sentences are added to ``used`` (a KB-wide set) and never repeat."""
    bank, mood, used = review_bank(), sentiment(stars), set() if used is None else used
    core: list[str] = []
    for m in mentions:
        core.append(facet_sentence(rng, m, mood, voice, used, core))
    if absent_features and rng.random() < NEGATION_RATE:
        feature = pick(rng, absent_features)
        text = _anchored(rng, pick(rng, bank["negations"][feature]), voice, {("features", feature)}, used, core)
        core += [text] if text else []
    if noise is not None and mood != "pos" and rng.random() < CONTRADICTION_RATE:
        s = pick(rng, bank["contradictions"][noise])
        text = _anchored(rng, s, voice, facet_hits(s), used, core)
        core += [text] if text else []
    first = opening(rng, voice, "opener", mood, used, core) if rng.random() < OPENER_RATE else []
    for section in rng.permutation(len(SECTIONS)) if not first else ():
        # the first sentence is a fallback quote (dialogues.quotes): one new to the KB, else a facet sentence
        first = opening(rng, voice, SECTIONS[int(section)], mood, used, core)
        if first and len(first[0]) <= QUOTABLE_MAX_CHARS:
            break
        first = []
    if len(" ".join(first + core)) > REVIEW_MAX_CHARS:
        first = []
    if not first and core:
        first, core = core[:1], core[1:]
    last = opening(rng, voice, "closer", mood, used, core + first) if rng.random() < CLOSER_RATE else []
    for _ in range(MAX_TRIES):  # a text already in the KB (a short one-sentence review) is re-drawn
        target = draw_target_length(rng)
        body = body_sentences(rng, voice, mood, used, core + first + last, 14 if target >= REVIEW_MAX_CHARS else 10)
        sentences = _layout(rng, first, core, body, last, target)
        text = " ".join(sentences)[:REVIEW_MAX_CHARS].rstrip()
        if text not in used:
            break
    else:
        raise ValueError(f"no new review text for {voice.name} after {MAX_TRIES} draws")
    used.update(sentences)
    used.update(reserved(s) for s in core + first)
    used.add(text)
    return text
