"""`trace-crs release export` then `import`: byte-identical dialogues on every mapped field."""
from __future__ import annotations

import json

from trace_crs.cli import main
from trace_crs.dialogues.schema import load_dialogues
from trace_crs.release.official import FIELDS, ROUND_TRIP, project

from .conftest import import_args


def _canon(d):
    return json.dumps(project(d), sort_keys=True, ensure_ascii=False).encode()


def test_round_trip_is_byte_identical_on_mapped_fields(smoke_corpus, tmp_path):
    kb, dialogues = smoke_corpus
    exp = tmp_path / "release"
    assert main(["--quiet", "release", "export", "--kb", str(kb), "--dialogues", str(dialogues), "--out", str(exp),
                 "--yelp-bundle", str(tmp_path / "yelp")]) == 0
    assert main(["--quiet", *import_args(exp, tmp_path / "imported", tmp_path / "yelp")]) == 0
    before, after = load_dialogues(dialogues), load_dialogues(tmp_path / "imported" / "dialogues.jsonl")
    assert [d["dialogue_id"] for d in after] == [d["dialogue_id"] for d in before]
    assert [_canon(d) for d in after] == [_canon(d) for d in before]
    assert sum(len(t["citations"]) for d in before for t in d["turns"]) > 0  # the trip carried quotes
    # every POI has a card, so the imported KB has the same slices: open sets agree too
    assert [d["open_set_poi_ids"] for d in after] == [d["open_set_poi_ids"] for d in before]
    report = json.loads((exp / "export_report.json").read_text())
    assert {f["field"] for f in report["not_exported"]} == {f["field"] for f in FIELDS} - set(ROUND_TRIP)


def test_export_carries_no_quote_text(smoke_corpus, tmp_path):
    kb, dialogues = smoke_corpus
    assert main(["--quiet", "release", "export", "--kb", str(kb), "--dialogues", str(dialogues),
                 "--out", str(tmp_path / "r")]) == 0
    text = (tmp_path / "r" / "crs_dataset.json").read_text() + (tmp_path / "r" / "poi_knowledge_base.json").read_text()
    quotes = {c["quote"] for d in load_dialogues(dialogues) for t in d["turns"] for c in t["citations"]}
    assert quotes and not [q for q in quotes if f'"{q}"' in text]
    records = json.loads((tmp_path / "r" / "crs_dataset.json").read_text())
    assert {k for r in records for k in r} == {"dialogue_id", "scenario", "candidate_poi_ids", "turns", "metadata"}
    assert sorted(p.name for p in (tmp_path / "r" / "splits").iterdir()) == [
        "test_dialogue_ids.json", "train_dialogue_ids.json", "val_dialogue_ids.json"]


def test_export_refuses_a_bundle_inside_its_output(smoke_corpus, tmp_path):
    kb, dialogues = smoke_corpus
    assert main(["release", "export", "--kb", str(kb), "--dialogues", str(dialogues), "--out", str(tmp_path / "r"),
                 "--yelp-bundle", str(tmp_path / "r" / "yelp")]) == 2
    assert not (tmp_path / "r").exists()


def test_export_refuses_to_write_a_yelp_kb_as_a_bundle(smoke_corpus, tmp_path):
    kb, dialogues = smoke_corpus
    manifest = json.loads((kb / "MANIFEST.json").read_text())
    yelp_kb = tmp_path / "kb"
    yelp_kb.mkdir()
    for name in ("pois.jsonl", "reviews.jsonl"):
        (yelp_kb / name).write_bytes((kb / name).read_bytes())
    (yelp_kb / "MANIFEST.json").write_text(json.dumps({**manifest, "source": "yelp"}))
    assert main(["release", "export", "--kb", str(yelp_kb), "--dialogues", str(dialogues), "--out",
                 str(tmp_path / "r"), "--yelp-bundle", str(tmp_path / "b")]) == 2
    assert not (tmp_path / "b").exists() and not (tmp_path / "r").exists()


def test_project_keeps_only_the_listed_fields():
    d = {"dialogue_id": "crs_x_00001", "split": "test", "scenario": {"city": "Tampa", "hidden_preferences": {}},
         "turns": [{"text": "a", "gold_poi_ids": ["p"], "acceptable_alternative_poi_ids": ["q"]}, {"text": "b"}]}
    assert project(d, ("dialogue_id", "scenario.city", "turns.text", "turns.gold_poi_ids")) == {
        "dialogue_id": "crs_x_00001", "scenario": {"city": "Tampa"},
        "turns": [{"text": "a", "gold_poi_ids": ["p"]}, {"text": "b"}]}
