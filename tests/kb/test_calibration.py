"""Yelp mention-rate calibration on a hand-made Yelp-format fixture (no Yelp data copied)."""
from __future__ import annotations

import json

import pytest

from trace_crs.errors import UsageError
from trace_crs.kb.calibration import yelp_mention_rates
from trace_crs.kb.yelp import BUSINESS_FILE, REVIEW_FILE


def biz(bid, attrs):
    return {"business_id": bid, "name": bid, "address": "", "city": "Tampa", "state": "FL", "latitude": 27.9,
            "longitude": -82.4, "stars": 4.0, "review_count": 3, "attributes": attrs, "categories": "Restaurants, Thai"}


def test_rate_is_the_share_of_reviews_of_businesses_with_the_value_that_mention_it(tmp_path):
    (tmp_path / BUSINESS_FILE).write_text("\n".join(json.dumps(b) for b in [
        biz("a", {"OutdoorSeating": "True"}), biz("b", {"OutdoorSeating": "False"})]) + "\n")
    reviews = [("a", "Lovely patio in the evening."), ("a", "Great curry."), ("a", "Slow service."),
               ("b", "We sat on the patio."), ("b", "Another patio mention.")]  # b has no outdoor seating
    (tmp_path / REVIEW_FILE).write_text("\n".join(json.dumps({"review_id": f"r{i}", "business_id": b, "text": t,
                                                              "stars": 4, "date": "2020-01-01"})
                                                  for i, (b, t) in enumerate(reviews)) + "\n")
    rates = yelp_mention_rates(tmp_path, min_reviews=1)
    assert rates["features:outdoor_seating"] == {"reviews": 3, "mentions": 1, "rate": pytest.approx(1 / 3)}
    assert rates["pooled"]["reviews"] == 3  # only reviews of businesses with a mapped value count
    with pytest.raises(UsageError, match="no facet value is seen on at least --min-reviews 4 reviews .the most: 3."):
        yelp_mention_rates(tmp_path, min_reviews=4)  # was {"pooled": {"rate": NaN}}: not JSON, no number
