"""Review text of the synthetic KB: sentences that express a POI's latent facets (paper
§2.1, Appendix D; facets of ``kb/facets.py``, keywords of ``data/facet_lexicon.yaml``).

A review is ``opener? + shuffled(facet sentences + fillers) + negation? + closer?`` with
star-consistent sentiment (4–5 → ``pos``, 3 → ``mixed``, 1–2 → ``neg``).  A facet
sentence wraps a noun phrase of ``data/review_bank.yaml`` that contains a lexicon keyword
of exactly that facet value.  How often a facet is named follows real reviews
(:func:`assign_mentions`, rates calibrated on Yelp by :mod:`trace_crs.kb.calibration`): style
and price always show somewhere, amenities and atmosphere only now and then, so keyword
search over a POI's reviews finds some of its facets, not all.  Rarely a review
names a feature the POI *lacks*, always as an explicit negation ("There is no pool ..."),
or contradicts its noise level ("Others call it quiet, but it was noisy ...").
Texts never exceed ``REVIEW_MAX_CHARS``: optional sentences are dropped first.
"""
from __future__ import annotations

from functools import lru_cache
from importlib import resources
from typing import Any, Sequence

import numpy as np
import yaml

from trace_crs.kb.schema import REVIEW_MAX_CHARS

NEGATION_RATE = 0.06       # share of reviews that add a complaint about a missing feature
CONTRADICTION_RATE = 0.05  # share of 1–3-star reviews that contradict the POI's noise level

Mention = tuple[str, str]  # (facet, value), e.g. ("features", "wifi")


@lru_cache(maxsize=1)
def review_bank() -> dict[str, Any]:
    """The parsed ``data/review_bank.yaml``."""
    return yaml.safe_load(resources.files("trace_crs.kb").joinpath("data/review_bank.yaml").read_text())


def sentiment(stars: int) -> str:
    """``pos`` for 4–5 stars, ``mixed`` for 3, ``neg`` for 1–2."""
    return "pos" if stars >= 4 else "mixed" if stars == 3 else "neg"


def pick(rng: np.random.Generator, seq: Sequence[Any]) -> Any:
    """One element of ``seq`` drawn uniformly with ``rng``."""
    return seq[int(rng.integers(len(seq)))]


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


def facet_sentence(rng: np.random.Generator, mention: Mention, mood: str) -> str:
    """A wrapper of the given sentiment around a noun phrase expressing ``mention``."""
    facet, value = mention
    phrase = pick(rng, review_bank()["np"][facet][value])
    wrapper = pick(rng, review_bank()["wrappers"][mood])
    return wrapper.format(np=phrase, NP=phrase[0].upper() + phrase[1:])


def write_review(rng: np.random.Generator, poi_type: str, stars: int, mentions: list[Mention],
                 absent_features: Sequence[str], noise: str | None) -> str:
    """Compose one review text (≤ ``REVIEW_MAX_CHARS``) expressing ``mentions``."""
    bank, mood = review_bank(), sentiment(stars)
    core = [facet_sentence(rng, m, mood) for m in mentions]
    fillers = [pick(rng, bank["fillers"][poi_type][mood]) for _ in range(int(rng.integers(1, 3)))]
    body = core + [f for f in dict.fromkeys(fillers)]
    body = [body[i] for i in rng.permutation(len(body))]
    negation = []
    if absent_features and rng.random() < NEGATION_RATE:
        negation.append(pick(rng, bank["negations"][pick(rng, absent_features)]))
    if noise is not None and mood != "pos" and rng.random() < CONTRADICTION_RATE:
        negation.append(pick(rng, bank["contradictions"][noise]))
    opener = [pick(rng, bank["openers"][poi_type])] if rng.random() < 0.8 else []
    closer = [pick(rng, bank["closers"][mood])] if rng.random() < 0.7 else []
    sentences = opener + body + negation + closer
    optional = set(opener + closer + fillers)
    while len(" ".join(sentences)) > REVIEW_MAX_CHARS:
        drop = next((s for s in reversed(sentences) if s in optional), None)
        if drop is None:
            raise ValueError(f"review of {len(' '.join(sentences))} chars cannot be shortened: {sentences}")
        sentences.remove(drop)
    return " ".join(sentences)
