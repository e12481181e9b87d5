"""The validation record: a corpus checked by `trace-crs dialogues validate` is not re-checked
by later loads while its bytes and the schema are unchanged (dialogues/schema.py)."""
import hashlib
import json

import pytest

from trace_crs.cli import main
from trace_crs.dialogues.schema import (DialogueFormatError, is_recorded_valid, load_dialogues,
                                        validation_record_path)


@pytest.fixture()
def validated(tmp_path, tiny_kb_dir):
    out = tmp_path / "d.jsonl"
    assert main(["dialogues", "generate", "--kb", str(tiny_kb_dir), "--n", "3", "--seed", "42", "--out", str(out)]) == 0
    assert not validation_record_path(out).exists()
    assert main(["dialogues", "validate", str(out), "--kb", str(tiny_kb_dir)]) == 0
    return out


def test_validate_records_the_bytes_it_checked(validated):
    record = json.loads(validation_record_path(validated).read_text())
    assert record["sha256"] == hashlib.sha256(validated.read_bytes()).hexdigest()
    assert is_recorded_valid(validated)
    assert len(load_dialogues(validated)) == 3


def test_a_changed_corpus_is_checked_in_full_again(validated):
    lines = validated.read_text().splitlines()
    broken = json.loads(lines[1])
    del broken["turns"]
    validated.write_text("\n".join([lines[0], json.dumps(broken), lines[2]]) + "\n")
    assert not is_recorded_valid(validated)
    with pytest.raises(DialogueFormatError, match=r"d\.jsonl:2: .*'turns'|d\.jsonl:2: .*<record>"):
        load_dialogues(validated)


def test_a_record_for_another_schema_is_not_trusted(validated):
    path = validation_record_path(validated)
    record = json.loads(path.read_text())
    path.write_text(json.dumps({**record, "schema_sha256": "0" * 64}))
    assert not is_recorded_valid(validated)


def test_a_failed_validation_writes_no_record(tmp_path, tiny_kb_dir, validated):
    lines = validated.read_text().splitlines()
    bad_opening = json.loads(lines[0])
    bad_opening["turns"][0]["action"] = "provide_preference"   # schema-valid, fails the "opening" rule
    other = tmp_path / "other.jsonl"
    other.write_text(json.dumps(bad_opening) + "\n")
    assert main(["dialogues", "validate", str(other), "--kb", str(tiny_kb_dir)]) == 1
    assert not validation_record_path(other).exists()


def test_a_schema_error_is_reported_as_a_schema_failure(tmp_path, tiny_kb_dir, validated, capsys):
    lines = validated.read_text().splitlines()
    broken = json.loads(lines[1])
    del broken["turns"]
    other = tmp_path / "schema.jsonl"
    other.write_text("\n".join([lines[0], json.dumps(broken), lines[2]]) + "\n")
    assert main(["dialogues", "validate", str(other), "--kb", str(tiny_kb_dir)]) == 1
    out = capsys.readouterr().out
    assert "validated 3 dialogues: 2 passed" in out and "schema" in out
    assert not validation_record_path(other).exists()
