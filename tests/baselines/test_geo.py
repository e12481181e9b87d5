"""Spatial, Itinerary, the cited responses, and rejected-POI demotion (models-free baselines)."""
import numpy as np
import pytest
from helpers import after_rejection, first_turn
from tinykb import RESTAURANTS

from trace_crs.baselines.itinerary import format_distance, greedy_tour, proximity_graph
from trace_crs.baselines.registry import NON_LLM, create
from trace_crs.baselines.responses import choose_quote, quotable_spans, render
from trace_crs.baselines.spatial import detect_anchor


def test_anchor_detection_and_centroid(kb):
    assert detect_anchor(kb, "Tampa", ["hi", "near Ybor City please"])[2] == "ybor city"
    assert detect_anchor(kb, "Tampa", ["near ybor city", "actually by Luigi Trattoria"])[2] == "luigi trattoria"
    lat, lon, name = detect_anchor(kb, "Tampa", ["anywhere"])
    assert name is None
    assert lat == pytest.approx(np.mean([p.latitude for p in kb.pois.values()]))
    assert lon == pytest.approx(np.mean([p.longitude for p in kb.pois.values()]))
    with pytest.raises(ValueError, match="no POIs in city"):
        detect_anchor(kb, "Reno", ["x"])


def test_spatial_prefers_anchor_neighbours(kb):
    # no query word is in any document, so the anchor decides: r2 sits on Ybor City, r6 ~150 m away
    ranked = create("spatial").predict(first_turn(kb, "zzz near Ybor City")).ranked_poi_ids
    assert ranked[:2] == ["r2", "r6"]


@pytest.mark.parametrize("km, text", [(0.35, "350 m"), (0.004, "0 m"), (1.0, "1.0 km"), (1.26, "1.3 km")])
def test_format_distance(km, text):
    assert format_distance(km) == text


def test_proximity_graph_excludes_same_type(kb):
    graph = proximity_graph(kb, "Tampa")
    assert [n for _, n in graph["r1"]] == ["h1"]          # r7 is 150 m away but also a restaurant
    assert {n for _, n in graph["h1"]} == {"r1", "r7"}
    assert graph["r2"] == []                               # r6 is close but the same type


def test_greedy_tour_and_itinerary(kb):
    # from r7: r6 is 4.53 km away, r2 4.55 km (hand haversine), so r6 comes before r2
    assert greedy_tour(kb, ["r1", "r2", "r7", "r6"]) == ["r1", "r7", "r6", "r2"]
    assert greedy_tour(kb, []) == []
    out = create("itinerary").predict(first_turn(kb, "italian pasta risotto"))
    assert out.ranked_poi_ids[:2] == ["r1", "r7"]
    assert "Hyde Park Inn (hotel," in out.text and " m to Bistro Lumiere" in out.text


def test_quotable_spans_skip_quotes_and_short():
    text = 'Too short. This one has "quotes" inside it. A fine long sentence here!'
    assert [text[a:b] for a, b in quotable_spans(text)] == ["A fine long sentence here!"]
    assert quotable_spans("") == []


def test_choose_quote_overlap_and_none(kb):
    q = choose_quote(kb, "r1", {"romantic", "date"})
    assert q.quote == "A quiet romantic spot for date night." and q.review_id == "rv_r1_2"
    assert kb.reviews[q.review_id].text[q.start:q.end] == q.quote
    assert choose_quote(kb, "nope", {"x"}) is None
    assert render("recommend", [], kb, set()) == ("I could not find a matching place among the options I have.", [])


# Hand-worked from tinykb: r1 has a 5★ review "The pasta was delicious and the risotto was creamy. Our
# server was friendly and attentive." and a 4★ one "A quiet romantic spot for date night. The tiramisu
# is a must."; r3 a 2★ "The sushi was bland …" and a 5★ "Elegant room and the ramen broth …"; r4's
# sentence with "famous" in double quotes is never quotable.
@pytest.mark.parametrize("poi, terms, quote", [
    ("r1", {"romantic", "date"}, "A quiet romantic spot for date night."),              # 2 shared terms win
    ("r1", {"tiramisu"}, "The tiramisu is a must."),
    ("r1", set(), "The pasta was delicious and the risotto was creamy."),                # empty: 5★, first sentence
    ("r1", {"zzz"}, "The pasta was delicious and the risotto was creamy."),              # no match: same
    ("r1", {"server", "pasta"}, "The pasta was delicious and the risotto was creamy."),  # 1-1 tie: earlier sentence
    ("r3", {"sushi", "ramen"}, "Elegant room and the ramen broth was rich and deep."),    # 1-1 tie: 5★ beats 2★
    ("r3", {"sushi", "staff"}, "The sushi was bland and the staff were rude to us."),     # 2 beats 0 despite 2★
    ("r4", {"milkshakes"}, "Decent burger and fries with plenty of parking outside."),    # quoted sentence skipped
])
def test_choose_quote_order(kb, poi, terms, quote):
    assert choose_quote(kb, poi, terms).quote == quote


@pytest.mark.parametrize("name", [n for n in NON_LLM if n not in ("dense", "hybrid_rrf")])
def test_quotes_are_verbatim_and_rejected_last(kb, name):
    check_verbatim_and_rejection(kb, name)


def check_verbatim_and_rejection(kb, name):
    baseline = create(name)
    baseline.prepare(kb)
    for ctx in (first_turn(kb, "quiet italian dinner"), after_rejection(kb, "quiet italian dinner", "r1")):
        out = baseline.predict(ctx)
        assert sorted(out.ranked_poi_ids) == sorted(RESTAURANTS)
        assert out.citations, name
        for c in out.citations:
            review = kb.reviews[c["review_id"]]
            assert review.text[c["start"]:c["end"]] == c["quote"] and c["quote"] in review.text
            assert f'"{c["quote"]}" [{c["label"]}]' in out.text
        assert [c["label"] for c in out.citations] == [f"R{i}" for i in range(1, len(out.citations) + 1)]
    assert out.ranked_poi_ids[-1] == "r1"


def test_anchor_needs_a_proximity_cue_and_skips_rejected_places(kb):
    # a POI named without a cue ("X won't work") is not where the user wants to be
    assert detect_anchor(kb, "Tampa", ["near Ybor City", "Taco Loco won't work for me."])[2] == "ybor city"
    assert detect_anchor(kb, "Tampa", ["Luigi Trattoria looks nice"])[2] is None
    assert detect_anchor(kb, "Tampa", ["close to Luigi Trattoria"], frozenset({"luigi trattoria"}))[2] is None


def test_spatial_anchor_after_a_rejection(kb):
    """The user asks to be near Ybor City, then turns down Taco Loco by name, with a cue word
    before its name: the anchor stays Ybor City, never the rejected POI."""
    from helpers import after_rejection

    from trace_crs.baselines.spatial import spatial_scores
    ctx = after_rejection(kb, "Somewhere near Ybor City.", "r2", refine="Not Taco Loco, nothing around Taco Loco.")
    assert ctx.rejected_poi_ids == {"r2"}
    lat, lon, name = detect_anchor(kb, "Tampa", ctx.user_texts,
                                   frozenset(kb.pois[p].name.lower() for p in ctx.rejected_poi_ids))
    assert name == "ybor city"
    assert len(spatial_scores(ctx)) == len(ctx.candidates)
