"""dialogues.quotes.quote_specificity: in how many POIs' reviews each cited quote occurs."""
import pytest

from trace_crs.dialogues.quotes import quote_specificity
from trace_crs.kb.schema import Review
from trace_crs.kb.store import KB


def _kb():
    rev = [Review("r1", "A", 5, "Great view. Quiet room.", "2020-01-01T00:00:00"),
           Review("r2", "B", 4, "Quiet room. Nice staff.", "2020-01-01T00:00:00"),
           Review("r3", "B", 3, "Nice staff at Bo's.", "2020-01-01T00:00:00")]
    return KB(pois={}, reviews={r.review_id: r for r in rev})


def _dialogue(*quotes, role="system"):
    return {"turns": [{"role": role, "citations": [{"quote": q} for q in quotes]}]}


def test_golden_counts():
    # "Great view." -> A only; "Quiet room." -> A and B; "Nice staff" -> B (twice, one POI);
    # "Rooftop" -> nowhere; the user turn's citation is not counted
    out = quote_specificity([_dialogue("Great view.", "Quiet room.", "Nice staff", "Rooftop"),
                             _dialogue("Great view.", role="user")], _kb())
    assert out == {"n_quotes": 4, "single_poi_share": pytest.approx(2 / 4),
                   "by_n_pois": {"0": 1, "1": 2, "2": 1, "3+": 0}}


def test_no_quotes():
    out = quote_specificity([_dialogue()], _kb())
    assert out["n_quotes"] == 0 and out["by_n_pois"] == {"0": 0, "1": 0, "2": 0, "3+": 0}


def test_quote_spanning_two_reviews_is_not_found():
    # the join separator keeps a quote from matching across the end of one review and the next
    assert quote_specificity([_dialogue("room. Quiet")], _kb())["by_n_pois"]["0"] == 1
