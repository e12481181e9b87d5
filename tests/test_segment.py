"""The one sentence splitter and word tokenizers (hand-worked cases)."""
import pytest

from trace_crs.segment import sentence_spans, split_sentences, terms, words


def test_review_sentences_end_at_punctuation_runs_and_line_breaks():
    text = "Great food!! Rated 3.5 stars by us. Open 9 a.m. daily\nWould return?"
    assert split_sentences(text, quote_aware=False) == [
        "Great food!!", "Rated 3.5 stars by us.", "Open 9 a.m.", "daily", "Would return?"]  # no abbreviation list


def test_spans_are_stripped_offsets():
    text = "  One two.   Three four.  "
    assert sentence_spans(text) == [(2, 10), (13, 24)]
    assert [text[a:b] for a, b in sentence_spans(text)] == ["One two.", "Three four."]


def test_response_quotes_stay_whole_with_their_label():
    text = 'Try Blue Door. A guest said "The pasta was great. Service too!" [R1]. Enjoy.'
    assert split_sentences(text) == ["Try Blue Door.", 'A guest said "The pasta was great. Service too!" [R1].', "Enjoy."]
    # a review with a stray quote mark is split as plain text
    assert split_sentences('A 5" pizza. Tiny.', quote_aware=False) == ['A 5" pizza.', "Tiny."]


def test_word_tokenizers():
    assert words("It's 3.5-star, ok?") == ["It", "s", "3", "5", "star", "ok"]
    assert terms("It's 3.5-Star, OK?") == ["it's", "3", "5", "star", "ok"]


# Every quote form the reader reads (dialogues/quote_reader.py), worked by hand: a boundary inside
# a quoted span is ignored, labels stay with their quote.
@pytest.mark.parametrize("text,sentences", [
    # straight, label after
    ('Try A. "Great food. Nice staff!" [R1]. Fine.', ["Try A.", '"Great food. Nice staff!" [R1].', "Fine."]),
    # typographic pairs “…”, „…“, «…»
    ("Try A. \u201cGreat food. Nice staff!\u201d [R1]. Fine.",
     ["Try A.", "\u201cGreat food. Nice staff!\u201d [R1].", "Fine."]),
    ("Try A. \u201eGreat food. Nice staff!\u201c [R1]. Fine.",
     ["Try A.", "\u201eGreat food. Nice staff!\u201c [R1].", "Fine."]),
    ("Try A. \u00abGreat food. Nice staff!\u00bb [R1]. Fine.",
     ["Try A.", "\u00abGreat food. Nice staff!\u00bb [R1].", "Fine."]),
    # label first, and a label group
    ('Try A. [R1] "Great food. Nice staff!" Fine.', ["Try A.", '[R1] "Great food. Nice staff!" Fine.']),
    ('Try A. "Great food. Nice staff!" [R1, R2]. Fine.', ["Try A.", '"Great food. Nice staff!" [R1, R2].', "Fine."]),
    ("Try A. [R1][R2] \u201cGreat food. Nice staff!\u201d Fine.",
     ["Try A.", "[R1][R2] \u201cGreat food. Nice staff!\u201d Fine."]),
    # an apostrophe ’ (U+2019, also the closing single mark) inside a typographic quote is text
    ("Go. \u201cDon\u2019t miss it. It\u2019s great.\u201d [R1]. Bye.",
     ["Go.", "\u201cDon\u2019t miss it. It\u2019s great.\u201d [R1].", "Bye."]),
    # single marks are not quotes (’ is the apostrophe): split as plain text
    ("Go. \u2018Don\u2019t miss it. Great.\u2019 Bye.", ["Go.", "\u2018Don\u2019t miss it.", "Great.\u2019 Bye."]),
    # nested marks: the first opened span runs to its own closing mark; marks inside are text
    ("Go. \u201cShe said \"wow. really\" twice. Yes.\u201d [R1]. Bye.",
     ["Go.", "\u201cShe said \"wow. really\" twice. Yes.\u201d [R1].", "Bye."]),
    ("Go. \"She said \u201cwow. really\u201d twice. Yes.\" [R1]. Bye.",
     ["Go.", "\"She said \u201cwow. really\u201d twice. Yes.\" [R1].", "Bye."]),
    # a straight mark inside a typographic quote does not shift the pairing of later quotes
    ("A \u201c5\" pizza. Tiny.\u201d [R1]. Go. \"Yes. Sure.\" [R2]. End.",
     ["A \u201c5\" pizza. Tiny.\u201d [R1].", "Go.", "\"Yes. Sure.\" [R2].", "End."]),
    # unclosed quotes (straight or typographic) and a lone closing mark open nothing
    ('Go. "Great food. Nice staff. Bye.', ["Go.", '"Great food.', "Nice staff.", "Bye."]),
    ("Go. \u201cGreat food. Nice staff. Bye.", ["Go.", "\u201cGreat food.", "Nice staff.", "Bye."]),
    ("Go. Great\u201d food. Bye.", ["Go.", "Great\u201d food.", "Bye."]),
    # a typographic opener whose next mark is another opener is not a quote; the next pair is
    ("Go. \u00abA. \u201eB. C.\u201c D.", ["Go.", "\u00abA.", "\u201eB. C.\u201c D."]),
    # as the reader pairs marks, an opening mark pairs with the next mark if that one closes, and
    # \u201c closes (it ends „…“): «A. “ is one span, so the cut falls after "B."
    ("Go. \u00abA. \u201cB. C.\u201d D.", ["Go.", "\u00abA. \u201cB.", "C.\u201d D."]),
    # a line break inside a quote is not a boundary either
    ('Go. "Great food.\nNice staff." [R1]', ["Go.", '"Great food.\nNice staff." [R1]']),
    ("", []),
])
def test_response_quotes_of_every_form_stay_whole(text, sentences):
    assert split_sentences(text) == sentences
    # review text ignores quotes: the same text splits at every boundary
    assert len(split_sentences(text, quote_aware=False)) >= len(sentences)


def test_review_text_ignores_every_quote_mark():
    # reviews (the default, quote_aware=False) split inside straight and typographic marks alike:
    # the review sentences the baselines quote and show in LLM prompts do not depend on quote pairing
    text = "Go. \u201cGreat food. Nice.\u201d \"Yes. Sure.\" End."
    assert sentence_spans(text) == sentence_spans(text, quote_aware=False)
    assert split_sentences(text, quote_aware=False) == [
        "Go.", "\u201cGreat food.", "Nice.\u201d \"Yes.", "Sure.\" End."]
