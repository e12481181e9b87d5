"""LLM Zero-Shot's ``choice`` mode (``lm.mode=choice``, or ``auto``: the family's local layout; issue 44): one
prompt prefix per dialogue.

``logprob`` mode asks one fit question per shown place and then writes the reply over the top
cards, so every later turn makes a local worker read each card again after the new conversation
text; ``generative`` puts DSPy's field layout and the instruction after the conversation.  Here
the cards and every instruction come first, once per dialogue, and each turn's two calls add only
the turn's new conversation text and a few words, so the worker's KV cache covers the rest:

    call 1  system: instructions (how to answer and how to reply), the decline rule, every shown card as A, B, …
            user:   the conversation so far, then "Best place?"
            -> one token and its top log-probabilities
    call 2  system: the same
            user:   the same conversation, then "Reply to the traveler recommending C (Luigi's), quoting its reviews."
            -> the reply

The ranking is the model's distribution over the card letters in call 1: a letter outside the
returned top-``TOP_K`` tokens gets the smallest returned log-probability (an upper bound), ties keep
a seeded order, rejected places go last — as :func:`trace_crs.lm.ranking.logprob_rank` ranks fit
scores.  Call 2 names the ranked-first place (the two best when comparing), so the reply is about
it.  It is a sibling of call 1, not its continuation: after an assistant turn of one letter the
0.5B model answered a short request with a letter too (choice-v1, and a choice-v3 draft: 30 of 39
held-out replies were three words or fewer).  Both are plain ``dspy.LM`` calls with messages: a
DSPy signature would put its field layout after the conversation, which every turn re-reads.
"""

from __future__ import annotations

import string
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

import numpy as np

from trace_crs.baselines.ask_rule import ASK_RULE, MAY_ASK
from trace_crs.baselines.base import TurnContext
from trace_crs.baselines.llm_common import Evidence, poi_card
from trace_crs.baselines.unsolved_rule import UNSOLVED_RULE
from trace_crs.lm.ranking import first_token, matching_logprob, top_entries

# choice-v3: how to reply lives in the shared system message and the reply call is a sibling of the letter
# call, its request only naming the places; choice-v2 continued the letter chat and repeated the
# instructions in every request, choice-v1's "Reply now: recommend C." drew one-letter replies
PROMPT_VERSION = "choice-v3"
LETTERS = string.ascii_uppercase + string.ascii_lowercase  # one token each in the local models' vocabularies
QUESTION = "Best place?"
REQUESTS = {
    "recommend": "Reply to the traveler recommending {0}, quoting its reviews.",
    "compare": "Reply to the traveler comparing {0} and {1}, quoting their reviews.",
}


def letters(n: int) -> str:
    """The first ``n`` card letters (ValueError beyond :data:`LETTERS`)."""
    if n > len(LETTERS):
        raise ValueError(f"choice mode labels at most {len(LETTERS)} places, got {n}")
    return LETTERS[:n]


def system_message(kb: Any, shown: Sequence[str], evidence: Evidence, notes: str = "") -> str:
    """Instructions, rules and every shown card (2 reviews each up to 16 places, 1 beyond)."""
    n_reviews = 2 if len(shown) <= 16 else 1
    cards = "\n".join(
        f"{label}. {poi_card(kb, poi_id, evidence, n_reviews)}"
        for label, poi_id in zip(letters(len(shown)), shown, strict=True)
    )
    return (
        f"[{PROMPT_VERSION}] You are a tourism assistant helping a traveler choose among the places below. "
        "Asked for the best place, answer with only the letter of the place that fits everything the traveler "
        "has asked for so far. Asked to recommend a place, write your reply to the traveler: name it, say why it "
        'fits what they asked for and quote its reviews verbatim as "quote" [Rn]. Asked to compare two places, '
        "compare them for the traveler the same way, quoting reviews for each. "
        f"{UNSOLVED_RULE}\n\nPlaces:\n{cards}" + (f"\n\n{notes}" if notes else "")
    )


def choice_messages(system: str, conversation: str, question: str = QUESTION) -> list[dict[str, str]]:
    """Call 1: the shared prefix, the conversation and the one-letter question (call 2: the same
    with the reply request in its place)."""
    return [
        {"role": "system", "content": system},
        {"role": "user", "content": f"Conversation:\n{conversation}\n\n{question}"},
    ]


def reply_request(action: str, best: Sequence[str]) -> str:
    """The reply request naming the best places (``best``: "C (Luigi's)", …) and nothing else: how
    to reply is in the system message (and the ``[Ask]`` rule while the live loop allows a question)."""
    if action not in REQUESTS:
        raise ValueError(f"no choice-mode reply for action {action!r}; known: {sorted(REQUESTS)}")
    ask = f" {ASK_RULE}" if MAY_ASK.get() else ""
    pair = [*best, *best][:2]  # one shown place: it is both
    return REQUESTS[action].format(*pair) + ask


def letter_logprobs(pairs: Sequence[tuple[str, float]], labels: str) -> dict[str, float]:
    """log P of each label among the first token's top entries (variants that strip to the label are
    summed in probability); a label not among them gets the smallest returned value."""
    return {label: matching_logprob(pairs, partial(_is_label, label)) for label in labels}


def _is_label(label: str, token: str) -> bool:
    return token.strip().strip(".):[]") == label


def rank_by_choice(
    shown: Sequence[str], scores: dict[str, float], seed: int, rejected: frozenset[str] | set[str] = frozenset()
) -> list[str]:
    """``shown`` by ``scores`` (descending), ties in a ``seed``-shuffled order, rejected places last."""
    order = [shown[i] for i in np.random.default_rng(seed).permutation(len(shown))]
    return sorted(order, key=lambda c: (c in rejected, -scores[c]))


def choose_and_reply(
    lm: Callable[..., Any], ctx: TurnContext, shown: Sequence[str], conversation: str, seed: int, notes: str = ""
) -> tuple[list[str], str, Evidence]:
    """``(ranking of shown, reply, evidence)`` from the two calls of the module docstring."""
    evidence = Evidence()
    labels = letters(len(shown))
    first = choice_messages(system_message(ctx.kb, shown, evidence, notes), conversation)
    answer = first_token(lm, first, "the choice question")
    by_label = letter_logprobs(top_entries(answer["logprobs"]), labels)
    ranked = rank_by_choice(
        shown, {c: by_label[lab] for lab, c in zip(labels, shown, strict=True)}, seed, ctx.rejected_poi_ids
    )
    letter_of = dict(zip(shown, labels, strict=True))
    best = [f"{letter_of[c]} ({ctx.kb.pois[c].name})" for c in ranked[:2]]
    reply = lm(messages=choice_messages(first[0]["content"], conversation, reply_request(ctx.action, best)))[0]
    text = reply.get("text", "") if isinstance(reply, dict) else str(reply)
    return list(ranked), text, evidence
