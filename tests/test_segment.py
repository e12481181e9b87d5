"""The one sentence splitter and word tokenizers (hand-worked cases)."""
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
