"""Release format and hydration (paper §2.1 Release, Appendix D).

``release`` replaces every verbatim quote in turn text by a ``[Q:N]`` placeholder (N counts
the dialogue's citations from 1 in turn order) and each citation's ``quote`` by a pointer
``{"q": N, "review_id", "start", "end", "sha256"}`` where ``sha256`` is the SHA256 of the
cited review's full text.  ``hydrate`` restores the text from a KB and fails, naming the
dialogue and the quote index, when the review is missing or its text checksum differs.
``hydrate(release(d), kb) == d`` for every valid dialogue.
"""

from __future__ import annotations

import copy
import hashlib
from typing import Any, cast

from trace_crs.dialogues.schema import Dialogue
from trace_crs.kb.store import KB


class HydrationError(ValueError):
    """A released quote cannot be restored from the KB."""


def text_sha256(text: str) -> str:
    """SHA256 (hex) of a review text encoded as UTF-8."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _quoted(quote: str, label: str) -> str:
    return f'"{quote}" [{label}]'


def release_dialogue(d: Dialogue, kb: KB) -> dict[str, Any]:
    """The release form of one dialogue (the input is not modified)."""
    out = cast(dict[str, Any], copy.deepcopy(d))  # the same keys; each turn's citations become pointers
    n = 0
    for turn in out["turns"]:
        pointers = []
        for c in turn["citations"]:
            n += 1
            review = kb.reviews.get(c["review_id"])
            if review is None:
                raise HydrationError(f"dialogue {d['dialogue_id']}: quote {n}: review {c['review_id']} not in the KB")
            old = _quoted(c["quote"], c["label"])
            if old not in turn["text"]:
                raise HydrationError(f"dialogue {d['dialogue_id']}: quote {n}: text lacks {old[:60]!r}")
            turn["text"] = turn["text"].replace(old, _quoted(f"[Q:{n}]", c["label"]), 1)
            pointers.append(
                {
                    "label": c["label"],
                    "review_id": c["review_id"],
                    "q": n,
                    "start": c["start"],
                    "end": c["end"],
                    "sha256": text_sha256(review.text),
                }
            )
        turn["citations"] = pointers
    return out


def hydrate_dialogue(r: dict[str, Any], kb: KB) -> dict[str, Any]:
    """Restore verbatim quotes of a released dialogue from ``kb``."""
    out = copy.deepcopy(r)
    for turn in out["turns"]:
        citations = []
        for p in turn["citations"]:
            where = f"dialogue {r['dialogue_id']}: quote {p['q']} (turn {turn['turn_id']}, {p['label']})"
            review = kb.reviews.get(p["review_id"])
            if review is None:
                raise HydrationError(f"{where}: review {p['review_id']} is missing from the KB")
            if text_sha256(review.text) != p["sha256"]:
                raise HydrationError(f"{where}: review {p['review_id']} text checksum differs from the release")
            quote = review.text[p["start"] : p["end"]]
            turn["text"] = turn["text"].replace(_quoted(f"[Q:{p['q']}]", p["label"]), _quoted(quote, p["label"]), 1)
            citations.append(
                {"label": p["label"], "review_id": p["review_id"], "quote": quote, "start": p["start"], "end": p["end"]}
            )
        turn["citations"] = citations
    return out
