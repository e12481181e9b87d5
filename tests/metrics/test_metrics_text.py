import math
import re

import pytest
from rouge_score import rouge_scorer

from trace_crs.metrics.text import bleu4, rouge_l_f1


def test_bleu4_hand_computed_with_exp_smoothing():
    # hyp "the cat sat on the mat" vs ref "the cat is on the mat" (6 tokens each, BP = 1):
    # p1 = 5/6, p2 = 3/5 (the cat, on the, the mat), p3 = 1/4 (on the mat),
    # p4 = 0/3 -> first zero order: 1 / (2 * 3)
    expected = math.exp((math.log(5 / 6) + math.log(3 / 5) + math.log(1 / 4) + math.log(1 / 6)) / 4)
    got = bleu4(["the cat sat on the mat"], ["the cat is on the mat"])
    assert got[0] == pytest.approx(expected, abs=1e-9)


def test_bleu4_identity_empty_and_no_match():
    assert bleu4(["a b c d e"], ["a b c d e"])[0] == pytest.approx(1.0)
    assert bleu4([""], ["a b c"])[0] == 0.0
    assert bleu4(["x y z"], ["a b c"])[0] == 0.0
    assert bleu4([], []).shape == (0,)


def test_bleu4_brevity_penalty():
    # hyp "a b c d" (4 tokens) vs ref "a b c d e f" (6): all precisions 1, BP = exp(1 - 6/4)
    assert bleu4(["a b c d"], ["a b c d e f"])[0] == pytest.approx(math.exp(1 - 6 / 4))


def test_rouge_l_hand_computed():
    # tokens: hyp [the, cat, sat, on, the, mat], ref [the, cat, is, on, the, mat]; LCS = 5
    p = r = 5 / 6
    assert rouge_l_f1(["The cat sat on the mat."], ["the cat is on the mat"])[0] == pytest.approx(2 * p * r / (p + r))


@pytest.mark.parametrize("hyp,ref", [("Great pasta, quiet patio!", "pasta and a quiet patio"),
                                     ("a b a b c", "b a c c"), ("x", "y z"), ("", "a"), ("a", "")])
def test_rouge_l_matches_rouge_score_reference(hyp, ref):
    want = rouge_scorer.RougeScorer(["rougeL"]).score(ref, hyp)["rougeL"].fmeasure
    assert rouge_l_f1([hyp], [ref])[0] == pytest.approx(want)


@pytest.mark.parametrize("hyp,ref", [("Great pasta, quiet patio!", "Great pasta and a quiet patio!"),
                                     ("a b a b a b", "a b a b"), ("one two three four five", "one two three four five six")])
def test_bleu4_matches_sacrebleu_sentence_score_on_pretokenised_text(hyp, ref):
    from sacrebleu.metrics import BLEU

    want = BLEU(smooth_method="exp", effective_order=False, tokenize="none").sentence_score(
        " ".join(re.findall(r"\w+|[^\w\s]", hyp)), [" ".join(re.findall(r"\w+|[^\w\s]", ref))]).score / 100
    assert bleu4([hyp], [ref])[0] == pytest.approx(want)
