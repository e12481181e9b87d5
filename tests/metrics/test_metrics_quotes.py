from trace_crs.metrics.quotes import Quote, label_offsets, parse_quotes, resolve_labels


def test_parse_quotes_and_labels():
    text = 'A "great pasta" [R1], bare [R2] and "unlabelled" here, "x"[R10].'
    assert parse_quotes(text) == [Quote("great pasta", "R1", 2), Quote("x", "R10", 55)]
    assert label_offsets(text) == [text.index("[R1]"), text.index("[R2]"), text.index("[R10]")]


def test_parse_empty_and_no_match():
    assert parse_quotes("") == [] and label_offsets("") == []
    assert parse_quotes('a "quote" without label') == []


def test_resolve_with_citations_drops_unlisted_labels():
    cit = [{"label": "R1", "review_id": "rb"}]
    assert resolve_labels(["R1", "R2"], cit, ["ra", "rb"]) == {"R1": "rb"}


def test_resolve_without_citations_uses_nth_review_of_top_poi():
    assert resolve_labels(["R1", "R2", "R3"], None, ["ra", "rb"]) == {"R1": "ra", "R2": "rb"}
    assert resolve_labels(["R1"], [], []) == {}
