"""Turn-level text quality against the reference system turn (Appendix J, "Text Quality").

* BLEU-4 = BP · exp(¼ Σₙ log pₙ), n = 1..4, with Chen & Cherry (2014) smoothing method 3
  (sacrebleu's ``compute_bleu`` with ``smooth_method="exp"``: the k-th n-gram order with
  zero matches gets pₙ = 1 / (2ᵏ · totalₙ)), full order 4 (no effective-order shortcut),
  clipped n-gram counts, BP = exp(1 − r/c) when c < r.  Tokens: case-sensitive regex
  ``\\w+|[^\\w\\s]`` (words and single punctuation marks, close to sacrebleu's ``13a``
  but ~10× faster).  Reported on a 0–1 scale; no matching unigram → 0.
* ROUGE-L F1 = 2PR / (P + R), P = LCS / |hyp|, R = LCS / |ref| over rouge-score's default
  tokens (lower-cased alphanumeric runs, no stemming); the LCS length comes from rapidfuzz's
  ``LCSseq`` (C++), which gives the same value as rouge-score's own table (checked in the
  tests) at a fraction of the cost.  Either side empty → 0.

What is compared (``ScoreConfig.text_reference``; App. J: "the system response and the
reference dialogue's response for the same turn"): ``turn`` compares the whole texts (the
headline); ``unquoted`` removes the quoted review spans ``"…" [Rn]`` from both sides, so only
the system's own wording is compared; ``quotes`` keeps only the quoted spans of both sides
(joined by spaces), so only the chosen evidence is compared (:func:`text_view`).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

import numpy as np
from rapidfuzz.distance import LCSseq
from rouge_score.tokenizers import DefaultTokenizer
from sacrebleu.metrics import BLEU

from trace_crs.metrics.quotes import parse_quotes, quote_spans

_BLEU_TOKEN = re.compile(r"\w+|[^\w\s]")
TEXT_REFERENCES: tuple[str, ...] = ("turn", "unquoted", "quotes")  # ScoreConfig.text_reference values


def _cut(text: str, spans: list[tuple[int, int]]) -> str:
    """``text`` with each span replaced by one space."""
    for a, b in reversed(spans):
        text = text[:a] + " " + text[b:]
    return text


def text_view(texts: Sequence[str], view: str) -> list[str]:
    """``texts`` as :data:`TEXT_REFERENCES` ``view`` compares them (see the module docstring)."""
    if view == "turn":
        return list(texts)
    if view == "unquoted":  # quotes found with typographic marks too (metrics.quotes), cut from the text as written
        return [" ".join(_cut(t, [(a, b) for a, b, _ in quote_spans(t)]).split()) for t in texts]
    if view == "quotes":
        return [" ".join(q.text for q in parse_quotes(t)) for t in texts]
    raise ValueError(f"text_reference {view!r}: expected one of {', '.join(TEXT_REFERENCES)}")


def _sentence_bleu(hyp: str, ref: str) -> float:
    h, r = _BLEU_TOKEN.findall(hyp), _BLEU_TOKEN.findall(ref)
    correct = []
    for n in range(1, 5):
        hc, rc = (
            Counter(zip(*(h[i:] for i in range(n)), strict=False)),
            Counter(zip(*(r[i:] for i in range(n)), strict=False)),
        )
        correct.append(sum(min(c, rc[g]) for g, c in hc.items() if g in rc))
    total = [max(0, len(h) - n) for n in range(4)]
    return BLEU.compute_bleu(correct, total, len(h), len(r), smooth_method="exp").score / 100.0


_ROUGE_TOKENIZER = DefaultTokenizer(use_stemmer=False)


def bleu4(hypotheses: Sequence[str], references: Sequence[str]) -> np.ndarray:
    """Sentence BLEU-4 (0–1) of each hypothesis against its single reference."""
    return np.array([_sentence_bleu(h, r) for h, r in zip(hypotheses, references, strict=False)], dtype=float)


def rouge_l_f1(hypotheses: Sequence[str], references: Sequence[str]) -> np.ndarray:
    """ROUGE-L F1 of each hypothesis against its single reference."""
    out = np.zeros(len(hypotheses), dtype=float)
    for i, (h, r) in enumerate(zip(hypotheses, references, strict=False)):
        ht, rt = _ROUGE_TOKENIZER.tokenize(h), _ROUGE_TOKENIZER.tokenize(r)
        if not ht or not rt:
            continue
        lcs = LCSseq.similarity(ht, rt)
        if lcs:
            p, rc = lcs / len(ht), lcs / len(rt)
            out[i] = 2 * p * rc / (p + rc)
    return out
