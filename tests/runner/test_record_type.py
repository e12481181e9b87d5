"""``Record`` names the columns of ``records.parquet`` (ARCHITECTURE §4), in order."""

import pytest

from trace_crs.metrics.predictions import cited_labels
from trace_crs.runner.records import SCHEMA, Record


def test_record_keys_are_the_parquet_columns():
    assert list(Record.__annotations__) == SCHEMA.names


def test_a_label_quoted_twice_names_its_review_once():
    # a reply of the default rag_citation run quoted two passages of one review, both "[R7]"
    quoted = [
        {"label": "R7", "review_id": "r-a", "quote": "great tacos"},
        {"label": "R2", "review_id": "r-b", "quote": "quiet"},
        {"label": "R7", "review_id": "r-a", "quote": "friendly staff", "start": 4, "end": 18},
    ]
    assert cited_labels(quoted) == [{"label": "R7", "review_id": "r-a"}, {"label": "R2", "review_id": "r-b"}]


def test_a_label_naming_two_reviews_is_refused():
    with pytest.raises(ValueError, match="R1"):
        cited_labels([{"label": "R1", "review_id": "r-a"}, {"label": "R1", "review_id": "r-b"}])
