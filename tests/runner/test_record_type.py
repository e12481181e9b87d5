"""``Record`` names the columns of ``records.parquet`` (ARCHITECTURE §4), in order."""
from trace_crs.runner.records import SCHEMA, Record


def test_record_keys_are_the_parquet_columns():
    assert list(Record.__annotations__) == SCHEMA.names
