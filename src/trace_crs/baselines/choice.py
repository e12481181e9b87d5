"""LLM Zero-Shot's ``choice`` mode (``lm.mode=choice``, opt-in; issue 44): one prompt prefix per dialogue.

``logprob`` mode asks one fit question per shown place and then writes the reply over the top
cards, so every later turn makes a local worker read each card again after the new conversation
text; ``generative`` puts DSPy's field layout and the instruction after the conversation.  Here a
dialogue's requests extend one another, so each turn's requests read little beyond its new text
when the worker keeps the dialogue's KV cache:

    system:     instructions, both action instructions, the decline rule, every shown card as A, B, …
    user:       the conversation so far, then "Best place (letter):"
    assistant:  one letter                        <- call 1: one token and its top log-probabilities
    user:       "Write your reply to the traveler about C (Luigi's). <action instruction> …"
                                                  <- call 2: the reply, continuing the same chat

The ranking is the model's distribution over the card letters in call 1: a letter outside the
returned top-``TOP_K`` tokens gets the smallest returned log-probability (an upper bound), ties keep
a seeded order, rejected places go last — as :func:`trace_crs.lm.ranking.logprob_rank` ranks fit
scores.  Call 2 continues the chat with the letter of the ranked-first place, so the reply is
about it (about the two best when comparing).  Both are plain ``dspy.LM`` calls with messages: a
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
from trace_crs.baselines.llm_common import ACTION_INSTRUCTIONS, Evidence, poi_card
from trace_crs.baselines.unsolved_rule import UNSOLVED_RULE
from trace_crs.lm.ranking import first_token, matching_logprob, top_entries

# choice-v2: the reply request names the chosen places and asks for quotes (choice-v1's "Reply now: recommend
# C." drew one-letter replies without quotes from the 0.5B model)
PROMPT_VERSION = "choice-v2"
LETTERS = string.ascii_uppercase + string.ascii_lowercase  # one token each in the local models' vocabularies
QUESTION = "Best place (letter):"
VERBS = {"recommend": "about {0}", "compare": "comparing {0} and {1}"}


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
    actions = " ".join(f"To {a}: {text}" for a, text in ACTION_INSTRUCTIONS.items())
    return (
        f"[{PROMPT_VERSION}] You are a tourism assistant helping a traveler choose among the places below. "
        "Asked for the best place, answer with only the letter of the place that fits everything the traveler "
        "has asked for so far. Asked to reply, write your reply to the traveler, quoting review excerpts verbatim as "
        f'"quote" [Rn]. {actions} {UNSOLVED_RULE}\n\nPlaces:\n{cards}' + (f"\n\n{notes}" if notes else "")
    )


def choice_messages(system: str, conversation: str) -> list[dict[str, str]]:
    """Call 1: the shared prefix, the conversation and the one-letter question."""
    return [
        {"role": "system", "content": system},
        {"role": "user", "content": f"Conversation:\n{conversation}\n\n{QUESTION}"},
    ]


def reply_messages(first: list[dict[str, str]], chosen: str, action: str, best: Sequence[str]) -> list[dict[str, str]]:
    """Call 2: call 1's chat, the chosen letter as the assistant's answer, then the reply request
    naming the best places (``best``: "C (Luigi's)", …) with the action's instruction and the
    quote format (and the ``[Ask]`` rule while the live loop allows a question)."""
    if action not in VERBS:
        raise ValueError(f"no choice-mode reply for action {action!r}; known: {sorted(VERBS)}")
    ask = f" {ASK_RULE}" if MAY_ASK.get() else ""
    pair = [*best, *best][:2]  # one shown place: it is both
    request = (
        f"Write your reply to the traveler {VERBS[action].format(*pair)}. {ACTION_INSTRUCTIONS[action]} "
        f'Quote them verbatim as "quote" [Rn].{ask}'
    )
    return [*first, {"role": "assistant", "content": chosen}, {"role": "user", "content": request}]


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
    reply = lm(messages=reply_messages(first, letter_of[ranked[0]], ctx.action, best))[0]
    text = reply.get("text", "") if isinstance(reply, dict) else str(reply)
    return list(ranked), text, evidence
