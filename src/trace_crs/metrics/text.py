"""Turn-level text quality against the reference system turn (Appendix J, "Text Quality").

* BLEU-4 = BP · exp(¼ Σₙ log pₙ), n = 1..4, with Chen & Cherry (2014) smoothing method 3
  (sacrebleu ``smooth_method="exp"``: the k-th n-gram order with zero matches gets
  pₙ = 1 / (2ᵏ · totalₙ)), sacrebleu's ``13a`` tokenizer, case-sensitive, full order 4
  (no effective-order shortcut), BP = exp(1 − r/c) when c < r.  Reported on a 0–1 scale.
  A hypothesis with no matching unigram scores 0.
* ROUGE-L F1 = 2PR / (P + R), P = LCS / |hyp|, R = LCS / |ref| over rouge-score's default
  tokens (lower-cased alphanumeric runs, no stemming); the LCS length comes from rapidfuzz's
  ``LCSseq`` (C++), which gives the same value as rouge-score's own table (checked in the
  tests) at a fraction of the cost.  Either side empty → 0.
"""
from __future__ import annotations

import logging
from functools import lru_cache
from typing import Sequence

import numpy as np
from rapidfuzz.distance import LCSseq
from rouge_score.tokenizers import DefaultTokenizer
from sacrebleu.metrics import BLEU

logging.getLogger("sacrebleu").setLevel(logging.ERROR)  # silence the effective-order advice


@lru_cache(maxsize=1)
def _bleu() -> BLEU:
    return BLEU(smooth_method="exp", effective_order=False, tokenize="13a")


_ROUGE_TOKENIZER = DefaultTokenizer(use_stemmer=False)


def bleu4(hypotheses: Sequence[str], references: Sequence[str]) -> np.ndarray:
    """Sentence BLEU-4 (0–1) of each hypothesis against its single reference."""
    bleu = _bleu()
    return np.array([bleu.sentence_score(h, [r]).score / 100.0 for h, r in zip(hypotheses, references)],
                    dtype=float)


def rouge_l_f1(hypotheses: Sequence[str], references: Sequence[str]) -> np.ndarray:
    """ROUGE-L F1 of each hypothesis against its single reference."""
    out = np.zeros(len(hypotheses), dtype=float)
    for i, (h, r) in enumerate(zip(hypotheses, references)):
        ht, rt = _ROUGE_TOKENIZER.tokenize(h), _ROUGE_TOKENIZER.tokenize(r)
        if not ht or not rt:
            continue
        lcs = LCSseq.similarity(ht, rt)
        if lcs:
            p, rc = lcs / len(ht), lcs / len(rt)
            out[i] = 2 * p * rc / (p + rc)
    return out
